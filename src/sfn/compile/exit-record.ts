import type { SfnEventType } from './contract.js';
import type { Fault } from './graph-context.js';
import { checkedJson } from './payload-limit.js';
import type { Step } from './step.js';
import { applyAssigned, assignedDetails } from './variables.js';

/** Records `<Type>StateExited` with `output` and `assigned` (applied), or gives the fault that stops it. */
export function exitRecord(s: Step, output: unknown, assigned?: Record<string, unknown>): { ok: true } | { ok: false; fault: Fault } {
  const name = s.ctx.state!.Name;
  const j = checkedJson(output, name);
  if (!j.ok) return j;
  const a = assigned === undefined ? undefined : assignedDetails(assigned, name);
  if (a && !a.ok) return a;
  s.ctx.data = output;
  if (assigned) applyAssigned(s, assigned);
  const type = `${s.env.graph.States[name]!.Type}StateExited` as SfnEventType;
  s.record(type, { name, output: j.text, outputDetails: { truncated: false }, ...(a?.details ?? {}) });
  return { ok: true };
}
