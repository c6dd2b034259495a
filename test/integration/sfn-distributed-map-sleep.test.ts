import { DescribeMapRunCommand, ListMapRunsCommand, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { createMachine, fullHistory, sfnClient, waitClosed } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

/*
 * A Distributed Map whose parent sleeps (AF_SLEEP_AFTER_MS 200) while its map run runs, inside a
 * Parallel branch, with a node bound of 2 children at once (AF_MAP_RUN_CHILDREN) below the
 * definition's MaxConcurrency: the outcome wakes the parent, the branch gets the results.
 */

let e: TestEngine;
let sfn: SFNClient;
beforeAll(async () => {
  e = await startTestEngine({ sleepAfterMs: 200, http: { port: 0, accessKeys: {} }, node: { mapRunChildren: 2 } });
  sfn = sfnClient(e.node.http!.port);
}, 30_000);
afterAll(async () => {
  sfn?.destroy();
  await e?.stop();
});

describe('Distributed Map with a sleeping parent', () => {
  it('wakes the parent with the results; the node bound caps the children at once', async () => {
    const sm = await createMachine(sfn, {
      StartAt: 'Both',
      States: {
        Both: {
          Type: 'Parallel', End: true,
          Branches: [
            { StartAt: 'Quick', States: { Quick: { Type: 'Pass', Result: 'quick', End: true } } },
            {
              StartAt: 'Fan',
              States: {
                Fan: {
                  Type: 'Map', MaxConcurrency: 10, End: true,
                  ItemProcessor: {
                    ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
                    StartAt: 'Nap', States: { Nap: { Type: 'Wait', Seconds: 1, Next: 'Echo' }, Echo: { Type: 'Pass', End: true } },
                  },
                },
              },
            },
          ],
        },
      },
    });
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: sm, input: JSON.stringify(['a', 'b', 'c', 'd', 'e']) }));
    // The parent (and the children waiting out their 1 s) go to sleep while the map run runs.
    await until(() => e.node.sfn.sleepingCount >= 1, { timeoutMs: 10_000, message: 'an execution asleep' });
    const d = await waitClosed(sfn, executionArn!, 60_000);
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toEqual(['quick', ['a', 'b', 'c', 'd', 'e']]);
    const mapRunArn = (await sfn.send(new ListMapRunsCommand({ executionArn }))).mapRuns![0]!.mapRunArn!;
    const m = await sfn.send(new DescribeMapRunCommand({ mapRunArn }));
    expect({ max: m.maxConcurrency, items: m.itemCounts }).toMatchObject({ max: 10, items: { succeeded: 5, total: 5 } });
    // Five children of 1 s, two at a time: at least three rounds.
    expect(d.stopDate!.getTime() - d.startDate!.getTime()).toBeGreaterThanOrEqual(3000);
    const types = (await fullHistory(sfn, executionArn!)).map((x) => x.type);
    expect(types.filter((t) => t?.startsWith('MapRun'))).toEqual(['MapRunStarted', 'MapRunSucceeded']);
  }, 90_000);
});
