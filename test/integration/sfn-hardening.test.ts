import {
  CreateStateMachineCommand, DescribeStateMachineCommand, GetExecutionHistoryCommand, SFNClient, StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { freshName, SFN_ROLE, sfnClient, waitClosed } from '../helpers/sfn-http.js';

let e: TestEngine;
let sfn: SFNClient;
beforeAll(async () => {
  e = await startTestEngine({ http: { port: 0, accessKeys: {} } });
  sfn = sfnClient(e.node.http!.port);
});
afterAll(async () => {
  sfn?.destroy();
  await e?.stop();
});

async function machine(definition: object): Promise<string> {
  const r = await sfn.send(new CreateStateMachineCommand({ name: freshName('sm'), roleArn: SFN_ROLE, definition: JSON.stringify(definition) }));
  return r.stateMachineArn!;
}
const start = async (stateMachineArn: string, input: object = {}) =>
  (await sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }))).executionArn!;

describe('Step Functions hardening over HTTP (AWS SDK)', () => {
  it('an endless Pass/Choice loop fails with States.Runtime at 25,000 events, and the node keeps serving', async () => {
    const sm = await machine({
      StartAt: 'Spin',
      States: {
        Spin: { Type: 'Pass', Next: 'Again' },
        Again: { Type: 'Choice', Choices: [{ Variable: '$.stop', BooleanEquals: true, Next: 'Done' }], Default: 'Spin' },
        Done: { Type: 'Succeed' },
      },
    });
    const executionArn = await start(sm, { stop: false });
    const d = await waitClosed(sfn, executionArn, 30_000);
    expect({ status: d.status, error: d.error, cause: d.cause }).toEqual({
      status: 'FAILED', error: 'States.Runtime', cause: 'The execution reached the maximum number of history events (25000).',
    });
    const last = await sfn.send(new GetExecutionHistoryCommand({ executionArn, reverseOrder: true, maxResults: 1 }));
    expect(last.events![0]).toMatchObject({ id: 25_000, type: 'ExecutionFailed' });
    expect(last.events![0]!.executionFailedEventDetails).toEqual({ error: 'States.Runtime', cause: 'The execution reached the maximum number of history events (25000).' });
    // Stored in several messages (one would pass the message size limit), read back whole and in order.
    const ids: number[] = [];
    let nextToken: string | undefined;
    do {
      const page = await sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 1000, nextToken, includeExecutionData: false }));
      ids.push(...page.events!.map((x) => x.id!));
      nextToken = page.nextToken;
    } while (nextToken);
    expect(ids).toEqual(Array.from({ length: 25_000 }, (_, i) => i + 1));

    // Still serving: a read and a short execution to the end.
    expect((await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: sm }))).status).toBe('ACTIVE');
    const short = await start(sm, { stop: true });
    expect((await waitClosed(sfn, short)).status).toBe('SUCCEEDED');
  }, 60_000);
});
