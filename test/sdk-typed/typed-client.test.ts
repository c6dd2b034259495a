import * as swfSdk from '@aws-sdk/client-swf';
import * as sfnSdk from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOrder, STEPS } from '../../examples/order-workflow.js';
import { runGreeting } from '../../examples/sfn-activity-worker.js';
import { isFault } from '../../src/index.js';
import { compact, startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';

let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.stop(); });

/** The actions of an AWS SDK client package: its `<Action>Command` exports. */
const commands = (mod: object) => Object.keys(mod).filter((k) => /^[A-Z]\w+Command$/.test(k)).map((k) => k.slice(0, -'Command'.length));
const method = (action: string) => `${action[0]!.toLowerCase()}${action.slice(1)}`;

describe('the typed client', () => {
  it('has a method for every action of the AWS SDK clients (SFN without the tag actions SWF serves)', () => {
    const swf = commands(swfSdk);
    const sfn = commands(sfnSdk);
    expect(swf.length).toBeGreaterThan(35);
    expect(sfn.length).toBeGreaterThan(35);
    for (const a of swf) expect(typeof (e.client.swf as Record<string, unknown>)[method(a)], `swf.${method(a)}`).toBe('function');
    for (const a of sfn.filter((x) => !['TagResource', 'UntagResource', 'ListTagsForResource'].includes(x))) {
      expect(typeof (e.client.sfn as Record<string, unknown>)[method(a)], `sfn.${method(a)}`).toBe('function');
    }
    expect('tagResource' in e.client.sfn).toBe(false);
  });

  it('runs the order workflow example (decision builders, history helpers) to COMPLETED', async () => {
    const run = await runOrder(e.client, uniqueDomain('typed-order'), { orderId: 'o-7' });
    expect(run.closeStatus).toBe('COMPLETED');
    expect(JSON.parse(run.result!)).toEqual({ orderId: 'o-7', ...Object.fromEntries(STEPS.map((s) => [s, 'ok'])) });
    const scheduled = compact(run.events, ['activityId']).split(' / ').filter((l) => l.includes('ActivityTaskScheduled'));
    expect(scheduled.map((l) => l.replace(/^\d+ /, ''))).toEqual(STEPS.map((s) => `ActivityTaskScheduled activityId=${s}`));
  });

  it('runs the Step Functions activity worker example to SUCCEEDED', async () => {
    const d = await runGreeting(e.client, `typed-greet-${process.pid}`);
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toEqual({ greeting: 'hello, world' });
  });

  it('surfaces a fault of a typed call as the AWS-named Fault', async () => {
    const err = await e.client.swf.describeDomain({ name: uniqueDomain('missing') }).catch((x: unknown) => x);
    expect(isFault(err, 'UnknownResourceFault')).toBe(true);
  });
});
