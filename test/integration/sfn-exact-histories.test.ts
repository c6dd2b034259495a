import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { branchCases } from '../fixtures/sfn-histories/branches.js';
import { linearCases } from '../fixtures/sfn-histories/linear.js';
import { fill, runHistoryCase } from '../helpers/sfn-history-cases.js';
import { createMachine, fullHistory, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';

/*
 * Step Functions histories event for event as AWS records them (every member but timestamps),
 * through @aws-sdk/client-sfn against a real engine. Each case names its AWS recording.
 */

let h: SfnHttpEngine | undefined;
beforeAll(async () => { h = await startSfnHttpEngine(); });
afterAll(async () => { await h?.stop(); });

describe.each([
  ['without branches', linearCases],
  ['of Parallel and Map states', branchCases],
])('exact AWS histories %s', (_label, cases) => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { names, events } = await runHistoryCase(h!.sfn, c);
    expect(events).toEqual(fill(c.events, names));
  }, 30_000);
});

describe('links of a Map wider than one turn of iterations', () => {
  it('every iteration starts from MapStateStarted or from the end of one before it, and the close links to the last iteration', async () => {
    const sfn = h!.sfn;
    const sm = await createMachine(sfn, { StartAt: 'M', States: { M: { Type: 'Map', ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } }, End: true } } });
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: sm, input: JSON.stringify(Array.from({ length: 90 }, (_v, i) => i)) }));
    expect((await waitClosed(sfn, executionArn!)).status).toBe('SUCCEEDED');
    const events = await fullHistory(sfn, executionArn!);
    const byId = new Map(events.map((e) => [e.id!, e]));
    const mapStarted = events.find((e) => e.type === 'MapStateStarted')!.id!;
    const ended = new Set<number>(); // last events of finished iterations
    let lastSucceeded = 0;
    for (const e of events) {
      expect(e.previousEventId!).toBeLessThan(e.id!);
      if (e.type === 'MapIterationStarted') {
        expect(e.previousEventId === mapStarted || ended.has(e.previousEventId!)).toBe(true);
        // Its iteration's first event links to it.
        expect(events.find((x) => x.id! > e.id! && x.previousEventId === e.id)?.type).toBe('PassStateEntered');
      }
      if (e.type === 'MapIterationSucceeded') {
        expect(byId.get(e.previousEventId!)?.type).toBe('PassStateExited');
        ended.add(e.previousEventId!);
        lastSucceeded = e.id!;
      }
    }
    expect(events.filter((e) => e.type === 'MapIterationStarted')).toHaveLength(90);
    expect(events.filter((e) => e.type === 'MapStateSucceeded' || e.type === 'MapStateExited').map((e) => e.previousEventId)).toEqual([lastSucceeded, lastSucceeded]);
  }, 30_000);
});
