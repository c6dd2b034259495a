import { evaluateJsonata, unexpectedType } from '../asl/jsonata.js';
import type { State } from '../asl/types.js';
import { visibleVariables } from './graph-context.js';
import type { Step } from './step.js';

/** What a JSONata state reads: `$states` beyond input and context (set where AWS sets them). */
export interface StatesExtra {
  result?: unknown;
  errorOutput?: unknown;
  /** In place of the state's `$states.context` (an ItemSelector's, with `Map.Item`). */
  context?: unknown;
}

/** Does `def` run JSONata (the compiler set every state's QueryLanguage)? */
export function isJsonata(def: State): boolean {
  return def.QueryLanguage === 'JSONata';
}

/**
 * The value of one field of a JSONata state: its `{% … %}` strings evaluated with `$states` (input,
 * the extras, context) and the variables as they were when the state was entered.
 */
export function evalField(s: Step, value: unknown, field: string, extra: StatesExtra = {}): unknown {
  const states: Record<string, unknown> = { input: s.ctx.input, context: s.co(), ...extra };
  return evaluateJsonata(value, field, { states, variables: visibleVariables(s.ctx), now: s.now() });
}

/** A field that must give a whole number ≥ `min` (Wait Seconds, Task TimeoutSeconds, Map MaxConcurrency). */
export function integerField(s: Step, value: unknown, field: string, min: number): number {
  const v = evalField(s, value, field);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw unexpectedType(field, value, min > 0 ? 'positive integer' : 'non-negative integer', v);
  return v;
}

/** A field that must give a string (Fail Error/Cause, Wait Timestamp). */
export function stringField(s: Step, value: unknown, field: string): string {
  const v = evalField(s, value, field);
  if (typeof v !== 'string') throw unexpectedType(field, value, 'string', v);
  return v;
}
