import {
  CreateStateMachineCommand, DescribeStateMachineCommand, ListStateMachinesCommand, SFNClient, StartExecutionCommand, StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definitionCase } from '../helpers/sfn-definition-arbitrary.js';
import { createMachine, freshName, SFN_ROLE, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';

let h: SfnHttpEngine | undefined;
let sfn: SFNClient;
beforeAll(async () => {
  h = await startSfnHttpEngine();
  ({ sfn } = h);
});
afterAll(async () => { await h?.stop(); });

const machine = (definition: object): Promise<string> => createMachine(sfn, definition);

const start = async (stateMachineArn: string, input: unknown) =>
  (await sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }))).executionArn!;

const LOADED_SECOND = 2000;

/** Sends DescribeStateMachine every 20 ms until stopped; reports how many answered and the slowest answer. */
function probe(stateMachineArn: string): { stop(): Promise<{ answered: number; slowestMs: number }> } {
  let running = true;
  let answered = 0;
  let slowestMs = 0;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      await sfn.send(new DescribeStateMachineCommand({ stateMachineArn }));
      slowestMs = Math.max(slowestMs, performance.now() - t);
      answered += 1;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return { async stop() { running = false; await loop; return { answered, slowestMs }; } };
}

/** `{"a":{"a":…}}` nested `depth` deep. */
function nestedObjects(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i += 1) v = { a: v };
  return v;
}

describe('bounded work per transition on a real engine (AWS SDK)', () => {
  it('MathRandom over a 3e9 range and a deep scan over a 1,000-deep input each fail within a second; other requests answer', async () => {
    const random = await machine({ StartAt: 'R', States: { R: { Type: 'Pass', Parameters: { 'r.$': 'States.MathRandom(0, 3000000000, 7)' }, End: true } } });
    const scan = await machine({ StartAt: 'S', States: { S: { Type: 'Pass', Parameters: { 'x.$': '$..*..*..*..*' }, End: true } } });
    const input = nestedObjects(1000);
    expect(JSON.stringify(input).length).toBeGreaterThan(6000);

    const p = probe(random);
    const [a, b] = await Promise.all([start(random, {}), start(scan, input)]);
    const [da, db] = await Promise.all([waitClosed(sfn, a), waitClosed(sfn, b)]);
    const { answered, slowestMs } = await p.stop();

    expect({ status: da.status, error: da.error, cause: da.cause }).toEqual({
      status: 'FAILED', error: 'States.IntrinsicFailure', cause: 'Invalid arguments in States.MathRandom: 3000000000 is outside the 32-bit integer range',
    });
    expect({ status: db.status, error: db.error }).toEqual({ status: 'FAILED', error: 'States.Runtime' });
    expect(db.cause).toContain("The evaluation of the JSONPath '$..*..*..*..*' exceeded the limit of 1000000 steps");
    const took = [da, db].map((d) => d.stopDate!.getTime() - d.startDate!.getTime());
    console.log(`MathRandom execution ${took[0]} ms, deep scan ${took[1]} ms; ${answered} probes answered, slowest ${Math.round(slowestMs)} ms`);
    // The issue asks for a second: idle it takes ~100 ms (MathRandom ~20 ms), with other test files
    // running on the 2 cores up to ~650 ms; twice the second keeps this true on a loaded machine.
    for (const ms of took) expect(ms).toBeLessThan(LOADED_SECOND);
    expect(answered).toBeGreaterThan(0);
    expect(slowestMs).toBeLessThan(LOADED_SECOND);
    // Still serving: a short execution runs to its end.
    const fine = await machine({ StartAt: 'R', States: { R: { Type: 'Pass', Parameters: { 'r.$': 'States.MathRandom(-2147483648, 2147483647, 7)' }, End: true } } });
    const ok = await waitClosed(sfn, await start(fine, {}));
    expect({ status: ok.status, output: ok.output }).toEqual({ status: 'SUCCEEDED', output: '{"r":-1156638823}' });
  }, 60_000);

  it('generated definitions are refused or run, and the node keeps answering', async () => {
    const cases = fc.sample(definitionCase({ maxWaitSeconds: 1, maxStates: 4 }, 2000), { seed: 20_261_201, numRuns: 12 });
    const tally: Record<string, number> = {};
    for (const { definition, input } of cases) {
      let arn: string;
      try {
        arn = await machine(definition as object);
      } catch (e) {
        expect((e as Error).name).toBe('InvalidDefinition');
        tally.refused = (tally.refused ?? 0) + 1;
        continue;
      }
      let executionArn: string;
      try {
        executionArn = await start(arn, input);
      } catch (e) {
        // An input past AWS's limits (256 KiB, or nested deeper than 1,000) is refused at the start.
        expect((e as Error).name).toBe('InvalidExecutionInput');
        tally.inputRefused = (tally.inputRefused ?? 0) + 1;
        continue;
      }
      // Loops with Waits may run long on a real clock: give each a few seconds, then stop it.
      let status: string;
      try {
        status = (await waitClosed(sfn, executionArn, 4000)).status!;
      } catch {
        await sfn.send(new StopExecutionCommand({ executionArn }));
        status = (await waitClosed(sfn, executionArn)).status!;
      }
      tally[status] = (tally[status] ?? 0) + 1;
      const t = performance.now();
      await sfn.send(new ListStateMachinesCommand({ maxResults: 1 }));
      expect(performance.now() - t).toBeLessThan(LOADED_SECOND);
    }
    console.log('generated definitions on the engine:', JSON.stringify(tally));
    expect(Object.values(tally).reduce((x, y) => x + y, 0)).toBe(12);
    expect(Object.keys(tally).every((k) => ['refused', 'inputRefused', 'SUCCEEDED', 'FAILED', 'ABORTED'].includes(k))).toBe(true);
  }, 120_000);
});
