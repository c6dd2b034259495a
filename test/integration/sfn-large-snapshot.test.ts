import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_TRANSITION_BYTES } from '../../src/history/history-store.js';
import type { ActorFlowClient } from '../../src/sdk/client.js';
import { freshName, SFN_ROLE } from '../helpers/sfn-http.js';
import { useNodesOnOneNats } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

const env = useNodesOnOneNats();
const { nodes, startEngine } = env;
let client: ActorFlowClient;
beforeAll(() => { client = env.client; });

const status = async (executionArn: string) => client.call<{ status: string; output?: string; error?: string }>('DescribeExecution', { executionArn });

/** Every event of an execution, page by page (GetExecutionHistory reads past the snapshot's part messages). */
async function history(executionArn: string, reverseOrder = false): Promise<{ id: number; type: string }[]> {
  const events: { id: number; type: string }[] = [];
  let nextToken: string | undefined;
  do {
    const page = await client.call<{ events: { id: number; type: string }[]; nextToken?: string }>('GetExecutionHistory',
      { executionArn, maxResults: 7, reverseOrder, includeExecutionData: false, ...(nextToken ? { nextToken } : {}) });
    events.push(...page.events);
    nextToken = page.nextToken;
  } while (nextToken);
  return events;
}
const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('a legal execution whose snapshot is larger than one NATS message', () => {
  it('a Parallel of 8 branches each holding 200 KB while they wait persists (snapshot in parts), survives a restart and finishes', async () => {
    const node = await startEngine();
    const branch = (b: number) => ({
      StartAt: `Nap${b}`,
      States: { [`Nap${b}`]: { Type: 'Wait', Seconds: 2, Next: `Done${b}` }, [`Done${b}`]: { Type: 'Pass', Result: b, End: true } },
    });
    const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', {
      name: freshName('sm'), roleArn: SFN_ROLE,
      definition: JSON.stringify({ StartAt: 'Par', States: { Par: { Type: 'Parallel', Branches: Array.from({ length: 8 }, (_, b) => branch(b)), End: true } } }),
    });
    const { executionArn } = await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, input: JSON.stringify({ s: 'x'.repeat(200_000) }) });
    // Every branch holds its 200 KB input twice (data and input): about 3.2 MB of snapshot.
    const info = await node.nats.jsm.streams.info(node.nats.subjects.streams.history);
    expect(info.state.bytes).toBeGreaterThan(2 * MAX_TRANSITION_BYTES);
    expect((await status(executionArn)).status).toBe('RUNNING');
    const waiting = await history(executionArn);
    expect(waiting.map((e) => e.id)).toEqual(ids(waiting.length));
    expect(waiting.filter((e) => e.type === 'WaitStateEntered')).toHaveLength(8);
    await node.stop();
    nodes.pop();
    await startEngine();
    await until(async () => (await status(executionArn)).status !== 'RUNNING', { timeoutMs: 20_000, message: 'the execution to close' });
    const d = await status(executionArn);
    expect({ status: d.status, output: d.output && JSON.parse(d.output) }).toEqual({ status: 'SUCCEEDED', output: [0, 1, 2, 3, 4, 5, 6, 7] });
    const all = await history(executionArn);
    expect(all.map((e) => e.id)).toEqual(ids(all.length));
    expect(all.slice(0, waiting.length)).toEqual(waiting);
    expect(all.at(-1)!.type).toBe('ExecutionSucceeded');
    expect((await history(executionArn, true)).map((e) => e.id)).toEqual(ids(all.length).reverse());
  });
});
