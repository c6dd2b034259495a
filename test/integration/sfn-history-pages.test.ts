import { describe, expect, it } from 'vitest';
import { DescribeExecutionCommand, GetExecutionHistoryCommand, StartExecutionCommand, type HistoryEvent } from '@aws-sdk/client-sfn';
import { TAIL_BYTES } from '../../src/history/event-log.js';
import { createMachine, sfnHttpEngineForFile, waitClosed } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

const h = sfnHttpEngineForFile();

/** Every event, `maxResults` a page, following nextToken. */
async function paged(executionArn: string, maxResults: number, reverseOrder = false): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let nextToken: string | undefined;
  do {
    const page = await h.sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults, reverseOrder, nextToken }));
    expect(page.events!.length).toBeLessThanOrEqual(maxResults);
    events.push(...page.events!);
    nextToken = page.nextToken;
  } while (nextToken);
  return events;
}

const ids = (events: HistoryEvent[]) => events.map((e) => e.id);
const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('GetExecutionHistory of a long execution, page by page', () => {
  it('pages forward and in reverse over events held and read back, while it runs and once it is done', async () => {
    const items = 300;
    const stateMachineArn = await createMachine(h.sfn, {
      StartAt: 'Each',
      States: {
        Each: {
          Type: 'Map', ItemsPath: '$.items', ItemSelector: { 'i.$': '$$.Map.Item.Value', big: 'x'.repeat(4096) },
          // Each iteration's input holds 4 KB; its result does not (the Map's result stays small).
          ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', Result: 1, End: true } } },
          ResultPath: null, Next: 'Nap',
        },
        Nap: { Type: 'Wait', Seconds: 2, Next: 'Done' },
        Done: { Type: 'Pass', End: true },
      },
    });
    const executionArn = (await h.sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify({ items: oneToN(items) }) }))).executionArn!;
    const last = async () => (await h.sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 1, reverseOrder: true }))).events![0]!;
    await until(async () => (await last()).type === 'WaitStateEntered', { timeoutMs: 15_000, message: 'the execution to wait' });
    expect((await h.sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');

    const running = await paged(executionArn, 37);
    expect(ids(running)).toEqual(oneToN(running.length));
    expect(running.filter((e) => e.type === 'MapIterationSucceeded')).toHaveLength(items);
    // More than the log keeps in memory: the early pages are read back from the stream.
    expect(JSON.stringify(running).length).toBeGreaterThan(TAIL_BYTES);
    expect(await paged(executionArn, 53, true)).toEqual([...running].reverse());

    expect((await waitClosed(h.sfn, executionArn)).status).toBe('SUCCEEDED');
    const all = await paged(executionArn, 41);
    expect(ids(all)).toEqual(oneToN(all.length));
    expect(all.slice(0, running.length)).toEqual(running);
    expect(all.at(-1)!.type).toBe('ExecutionSucceeded');
    expect(await paged(executionArn, 1000, true)).toEqual([...all].reverse());
    expect(await paged(executionArn, 1000)).toEqual(all);
  });
});
