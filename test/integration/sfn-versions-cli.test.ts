import { CreateStateMachineAliasCommand, CreateStateMachineCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AWS, requireClient, run, type Ran } from '../helpers/external-clients.js';
import { freshName, SFN_ROLE, startSfnHttpEngine, type SfnHttpEngine } from '../helpers/sfn-http.js';

let h: SfnHttpEngine;
let endpoint: string;
beforeAll(async () => {
  h = await startSfnHttpEngine();
  endpoint = `http://127.0.0.1:${h.engine.node.http!.port}`;
});
afterAll(async () => { await h?.stop(); });

// Each CLI start costs seconds on a loaded machine: a generous bound per call.
const aws = (...args: string[]) => run(AWS, ['stepfunctions', ...args, '--endpoint-url', endpoint, '--region', 'us-east-1', '--output', 'json'], 90_000);
const ok = (r: Ran): any => {
  expect(r.code, `aws failed (exit ${r.code}):\n${r.stderr}`).toBe(0);
  return r.stdout.trim() === '' ? {} : JSON.parse(r.stdout);
};
const pass = (result: string) => JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Pass', Result: result, End: true } } });

describe('the aws CLI (stepfunctions)', () => {
  it('tags, describes a version, starts through an alias and reads the state machine an execution ran', async () => {
    await requireClient('aws');
    // The Debian CLI (2.9) predates versions and aliases: they are made with the SDK, used with the CLI.
    const c = await h.sfn.send(new CreateStateMachineCommand({ name: freshName('cli'), roleArn: SFN_ROLE, definition: pass('v1'), publish: true }));
    const alias = await h.sfn.send(new CreateStateMachineAliasCommand({ name: 'live', routingConfiguration: [{ stateMachineVersionArn: c.stateMachineVersionArn, weight: 100 }] }));
    const sm = c.stateMachineArn!;
    const [tagged, version, started, fault] = await Promise.all([
      aws('tag-resource', '--resource-arn', sm, '--tags', 'key=team,value=orders', 'key=tier,value=gold'),
      aws('describe-state-machine', '--state-machine-arn', c.stateMachineVersionArn!),
      aws('start-execution', '--state-machine-arn', alias.stateMachineAliasArn!, '--input', '{}'),
      aws('tag-resource', '--resource-arn', `${sm}:1`, '--tags', 'key=a,value=b'),
    ]);
    ok(tagged);
    expect(ok(version)).toMatchObject({ stateMachineArn: `${sm}:1`, definition: pass('v1'), status: 'ACTIVE' });
    const { executionArn } = ok(started);
    expect(fault.code).not.toBe(0);
    expect(fault.stderr).toContain('ResourceNotFound');

    ok(await aws('untag-resource', '--resource-arn', sm, '--tag-keys', 'tier'));
    const [tags, forExecution] = await Promise.all([
      aws('list-tags-for-resource', '--resource-arn', sm),
      aws('describe-state-machine-for-execution', '--execution-arn', executionArn),
    ]);
    expect(ok(tags).tags).toEqual([{ key: 'team', value: 'orders' }]);
    expect(ok(forExecution)).toMatchObject({ stateMachineArn: sm, definition: pass('v1'), roleArn: SFN_ROLE });
  }, 240_000);
});
