import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { fault, ok, okJson, usage } from './sfn-helpers.js';

// `actorflow sfn versions | aliases`: a good and a bad input each.
let e: TestEngine;
let arn: string;
const name = `versioned-${process.pid}`;
const cli = (...args: string[]) => runCliProcess([...args, '--nats', e.url]);

beforeAll(async () => {
  e = await startTestEngine();
  const definition = (n: number) => JSON.stringify({ StartAt: 'P', States: { P: { Type: 'Pass', Result: n, End: true } } });
  const created = await e.client.call<{ stateMachineArn: string; stateMachineVersionArn: string }>('CreateStateMachine', { name, roleArn: 'arn:aws:iam::000000000000:role/cli', definition: definition(1), publish: true });
  arn = created.stateMachineArn;
  const v2 = await e.client.call<{ stateMachineVersionArn: string }>('UpdateStateMachine', { stateMachineArn: arn, definition: definition(2), publish: true });
  await e.client.call('CreateStateMachineAlias', {
    name: 'prod', routingConfiguration: [{ stateMachineVersionArn: created.stateMachineVersionArn, weight: 80 }, { stateMachineVersionArn: v2.stateMachineVersionArn, weight: 20 }],
  });
}, 30_000);
afterAll(async () => { await e?.stop(); });

describe('actorflow sfn versions and aliases', { timeout: 60_000 }, () => {
  it('versions: newest first by name or ARN; an unknown state machine is StateMachineDoesNotExist', async () => {
    const [text, json, unknown, badLimit] = await Promise.all([
      cli('sfn', 'versions', '--state-machine', name), cli('sfn', 'versions', '--state-machine', arn, '--json'),
      cli('sfn', 'versions', '--state-machine', 'nope'), cli('sfn', 'versions', '--state-machine', arn, '--limit', 'x'),
    ]);
    expect(ok(text)).toMatch(/^VERSION\s+CREATED\s+ARN\n2\s+\S+\s+\S+:2\n1\s+\S+\s+\S+:1\n2 versions$/m);
    expect((okJson(json).stateMachineVersions as { stateMachineVersionArn: string }[]).map((v) => v.stateMachineVersionArn)).toEqual([`${arn}:2`, `${arn}:1`]);
    fault(unknown, 'StateMachineDoesNotExist');
    usage(badLimit, /--limit must be a positive integer/);
  });

  it('aliases: each with its routing; a missing --state-machine is bad usage', async () => {
    const [text, json, missing] = await Promise.all([
      cli('sfn', 'aliases', '--state-machine', name), cli('sfn', 'aliases', '--state-machine', arn, '--json'), cli('sfn', 'aliases'),
    ]);
    expect(ok(text)).toMatch(/^prod\s+1:80% 2:20%\s+\S+\s+\S+:prod$/m);
    expect(okJson(json).stateMachineAliases).toMatchObject([{ name: 'prod', stateMachineAliasArn: `${arn}:prod`, routingConfiguration: [{ weight: 80 }, { weight: 20 }] }]);
    usage(missing, /--state-machine/);
  });
});
