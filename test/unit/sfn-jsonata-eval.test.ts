import { describe, expect, it } from 'vitest';
import { EVALUATION_LIMITS } from '../../src/sfn/asl/bounds.js';
import { evaluateJsonata, JSONATA_BUSY_MS, JSONATA_TIMEOUT_MS, QueryEvaluationError } from '../../src/sfn/asl/jsonata.js';

const scope = { states: { input: { a: 1 } }, variables: { v: 2 }, now: Date.UTC(2024, 0, 1) };

describe('JSONata evaluation on its thread', () => {
  it('evaluates synchronously: a value without expressions is returned as it is', () => {
    const plain = { k: [1, 'two'] };
    expect(evaluateJsonata(plain, 'Output', scope)).toBe(plain);
    expect(evaluateJsonata('{% $states.input.a + $v %}', 'Output', scope)).toBe(3);
  });

  it('fails a runaway expression on its thread after its budget of steps or time, well before the node\'s time limit', () => {
    evaluateJsonata('{% 1 %}', 'Output', scope); // the thread is up: the time measures the expression alone
    // A tail recursion (jsonata loops) and a deep one (jsonata grows its heap).
    for (const runaway of ['($f := function($n) { $n > 0 ? $f($n) : 0 }; $f(1))', '($f := function($n) { $f($n) + 1 }; $f(1))']) {
      const t0 = performance.now();
      let err: unknown;
      try {
        evaluateJsonata(`{% ${runaway} %}`, 'Output', scope);
      } catch (e) {
        err = e;
      }
      const held = performance.now() - t0;
      expect(err).toBeInstanceOf(QueryEvaluationError);
      const head = `The JSONata expression '${runaway}' specified for the field 'Output' threw an error during evaluation. `;
      // Which bound comes first depends on the machine's speed.
      expect([`${head}The evaluation of the expression exceeded the limit of ${EVALUATION_LIMITS.steps} steps`,
        `${head}The evaluation did not finish within ${JSONATA_BUSY_MS} ms`]).toContain((err as QueryEvaluationError).cause);
      expect(held).toBeLessThan(JSONATA_TIMEOUT_MS);
    }
    // A large but finite evaluation is well inside both.
    expect(evaluateJsonata('{% $count([1..100000][$ % 2 = 0]) %}', 'Output', scope)).toBe(50_000);
  }, 30_000);

  it('cuts a single slow step off at the time limit, and the next evaluation runs on a new thread', () => {
    evaluateJsonata('{% 1 %}', 'Output', scope); // the thread is up: the limit measures the expression alone
    const t0 = performance.now();
    let err: unknown;
    try {
      // One step: a regular expression that backtracks exponentially.
      evaluateJsonata(`{% $match("${'a'.repeat(40)}!", /(a+)+$/) %}`, 'Output', scope);
    } catch (e) {
      err = e;
    }
    const held = performance.now() - t0;
    expect(err).toBeInstanceOf(QueryEvaluationError);
    expect((err as QueryEvaluationError).cause).toBe(`The JSONata expression specified for the field 'Output' threw an error during evaluation. The evaluation did not finish within ${JSONATA_TIMEOUT_MS} ms`);
    expect(held).toBeGreaterThanOrEqual(JSONATA_TIMEOUT_MS - 50);
    // A loaded machine may add seconds; never the minute a thread start may take.
    expect(held).toBeLessThan(JSONATA_TIMEOUT_MS + 15_000);
    expect(evaluateJsonata('{% $v * 10 %}', 'Output', scope)).toBe(20);
  }, 90_000);
});
