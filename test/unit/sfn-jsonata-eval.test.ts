import { describe, expect, it } from 'vitest';
import { evaluateJsonata, JSONATA_TIMEOUT_MS, QueryEvaluationError } from '../../src/sfn/asl/jsonata.js';

const scope = { states: { input: { a: 1 } }, variables: { v: 2 }, now: Date.UTC(2024, 0, 1) };

describe('JSONata evaluation on its thread', () => {
  it('evaluates synchronously: a value without expressions is returned as it is', () => {
    const plain = { k: [1, 'two'] };
    expect(evaluateJsonata(plain, 'Output', scope)).toBe(plain);
    expect(evaluateJsonata('{% $states.input.a + $v %}', 'Output', scope)).toBe(3);
  });

  it('cuts a runaway expression off with QueryEvaluationError, and the next evaluation runs on a new thread', () => {
    evaluateJsonata('{% 1 %}', 'Output', scope); // the thread is up: the limit measures the expression alone
    const t0 = performance.now();
    let err: unknown;
    try {
      evaluateJsonata('{% ($f := function($n) { $f($n) + 1 }; $f(1)) %}', 'Output', scope);
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
