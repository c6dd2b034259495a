import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isInvalidDefinition, parseDefinition } from '../../src/sfn/asl/validate-definition.js';
import { definitionCase } from '../helpers/sfn-definition-arbitrary.js';
import { runCase } from '../helpers/sfn-driver.js';

/** Generous per case on a loaded 2-core machine; a hang or a spin would take far longer. */
const CASE_MS = 10_000;
const TERMINAL = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'];

describe('generated Step Functions definitions (fast-check, fixed seed)', () => {
  it('each is refused with InvalidDefinition or runs to a terminal state on the simulated clock, without throwing', () => {
    const tally: Record<string, number> = { refused: 0 };
    let slowest = 0;
    fc.assert(fc.property(definitionCase({ maxWaitSeconds: 30, maxStates: 5 }), fc.boolean(), ({ definition, input }, crash) => {
      try {
        parseDefinition(JSON.stringify(definition));
      } catch (e) {
        if (!isInvalidDefinition(e)) throw e;
        tally.refused! += 1;
        return;
      }
      const t = performance.now();
      // A small history limit ends loops (Choice back to itself, Catch to an earlier state) quickly.
      const run = runCase({ name: 'generated', definition, input, historyLimit: crash ? 150 : 400, expect: { status: 'SUCCEEDED', output: null } }, { crash, maxSteps: 5000 });
      const ms = performance.now() - t;
      slowest = Math.max(slowest, ms);
      expect(TERMINAL).toContain(run.output.status);
      expect(ms).toBeLessThan(CASE_MS);
      tally[run.output.status] = (tally[run.output.status] ?? 0) + 1;
    }), { seed: 20_261_201, numRuns: 150 });
    console.log('generated definitions:', JSON.stringify(tally), `slowest case ${Math.round(slowest)} ms`);
    // The generator reaches both outcomes and both kinds of end.
    expect(tally.refused).toBeGreaterThan(5);
    expect(tally.SUCCEEDED).toBeGreaterThan(10);
    expect(tally.FAILED).toBeGreaterThan(10);
  }, 120_000);
});
