import type { Fault } from './graph-context.js';
import { nestingDepth } from '../../protocol/nesting.js';

/**
 * AWS's quota on the input or output of a task, state or execution: 256 KiB of data as a UTF-8
 * encoded string. Measured in bytes (a string of 262,000 × "é" is 524,000 bytes).
 */
export const MAX_PAYLOAD_BYTES = 262_144;

/**
 * How deep JSON data may nest. AWS documents no depth; this bound keeps every recursive step
 * (JSON text, msgpack, structured clone) far from the JavaScript stack limit, which a 5,000-deep
 * value already passes.
 */
export const MAX_PAYLOAD_DEPTH = 1000;

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** How deep `v` nests, up to just past AWS's bound here (the counting is the evaluator's, asl/json-text.ts). */
export function payloadDepth(v: unknown): number {
  return nestingDepth(v, MAX_PAYLOAD_DEPTH);
}

/** AWS's States.DataLimitExceeded for a state whose input, result or output is too large. */
export function dataLimitFault(state: string): Fault {
  return {
    error: 'States.DataLimitExceeded',
    cause: `The state/task '${state}' returned a result with a size exceeding the maximum number of bytes service limit.`,
  };
}

/** Data nested past MAX_PAYLOAD_DEPTH: the state fails (States.Runtime) instead of overflowing the stack. */
export function depthFault(state: string): Fault {
  return { error: 'States.Runtime', cause: `The state/task '${state}' produced data nested deeper than ${MAX_PAYLOAD_DEPTH} levels.` };
}

/**
 * The JSON text of a state's data as its history event carries it, or the fault when it may not
 * go on: nested too deep, or over 256 KiB in UTF-8.
 */
export function checkedJson(v: unknown, state: string): { ok: true; text: string } | { ok: false; fault: Fault } {
  if (payloadDepth(v) > MAX_PAYLOAD_DEPTH) return { ok: false, fault: depthFault(state) };
  const text = JSON.stringify(v ?? null);
  return utf8Bytes(text) > MAX_PAYLOAD_BYTES ? { ok: false, fault: dataLimitFault(state) } : { ok: true, text };
}
