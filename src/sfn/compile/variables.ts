import { evaluateTemplate } from '../asl/payload-template.js';
import type { Assign, State } from '../asl/types.js';
import { checkedJson, MAX_PAYLOAD_BYTES, utf8Bytes } from './payload-limit.js';
import { evalField, isJsonata, type StatesExtra } from './query.js';
import type { Step } from './step.js';
import type { Fault } from './graph-context.js';

/**
 * Workflow variables (Assign). AWS's order: every assignment (and Output) of a state is evaluated
 * with the variables as they were before the state; the new values take effect once the state
 * exits, for the states after it. A Parallel branch or Map iteration reads the variables of the
 * scopes around it (GraphInput.outer, fixed when it starts: nothing outside can change while the
 * state runs) and keeps its own assignments to itself.
 */

/** AWS: the variables one state assigns may take up to 256 KiB (UTF-8 JSON). */
export const MAX_ASSIGN_BYTES = MAX_PAYLOAD_BYTES;

/** The values `assign` gives: JSONata (`$states` with `extra`) or JSONPath (`.$` members read from `data`). */
export function evaluateAssign(s: Step, def: State, assign: Assign | undefined, field: string, extra: StatesExtra, data: unknown): Record<string, unknown> | undefined {
  if (assign === undefined) return undefined;
  const values = isJsonata(def) ? evalField(s, assign, field, extra) : evaluateTemplate(assign, data, s.co());
  return values as Record<string, unknown>;
}

/** States.DataLimitExceeded for assignments over the quota. */
function assignLimitFault(state: string): Fault {
  return {
    error: 'States.DataLimitExceeded',
    cause: `The state/task '${state}' assigned variables with a size exceeding the maximum number of bytes service limit.`,
  };
}

/**
 * The assigned values as the exited event carries them (`assignedVariables`: name → JSON text), or the
 * fault when they are too large or nested too deep.
 */
export function assignedDetails(assigned: Record<string, unknown>, state: string): { ok: true; details: Record<string, unknown> } | { ok: false; fault: Fault } {
  const texts: Record<string, string> = {};
  let bytes = 0;
  for (const [name, value] of Object.entries(assigned)) {
    const j = checkedJson(value, state);
    if (!j.ok) return j.fault.error === 'States.DataLimitExceeded' ? { ok: false, fault: assignLimitFault(state) } : j;
    texts[name] = j.text;
    bytes += utf8Bytes(name) + j.text.length;
  }
  if (bytes > MAX_ASSIGN_BYTES) return { ok: false, fault: assignLimitFault(state) };
  return { ok: true, details: { assignedVariables: texts, assignedVariablesDetails: { truncated: false } } };
}

/** The state's assignments take effect (its own scope). */
export function applyAssigned(s: Step, assigned: Record<string, unknown>): void {
  s.ctx.vars = { ...(s.ctx.vars ?? {}), ...assigned };
}
