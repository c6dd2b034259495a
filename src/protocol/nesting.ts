import { Fault } from './faults.js';

/** How deep `v` nests (a scalar or binary is 0, `[]` is 1), counted without recursion; stops once past `max`. */
export function nestingDepth(v: unknown, max = Infinity): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[v, 0]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    // Binary (msgpack bin, over NATS) is a leaf: its bytes are not values to walk.
    if (x === null || typeof x !== 'object' || ArrayBuffer.isView(x)) continue;
    const depth = d + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > max) return deepest;
    for (const c of Array.isArray(x) ? x : Object.values(x)) if (c !== null && typeof c === 'object') stack.push([c, depth]);
  }
  return deepest;
}

/**
 * The deepest a request body may nest. The deepest shape of either API is five levels
 * (RespondDecisionTaskCompleted's `decisions[].…DecisionAttributes.activityType`, CreateStateMachine's
 * `loggingConfiguration.destinations[].cloudWatchLogsLogGroup`), so anything near this is not a
 * request of either, and some of an operation's walks over its input recurse: a body nested
 * thousands deep overflowed the stack (an InternalFailure). JSON text inside a member (a Step
 * Functions definition or input) has limits of its own.
 */
export const MAX_REQUEST_DEPTH = 64;

/** SerializationException when a decoded request body nests deeper than MAX_REQUEST_DEPTH; both transports ask. */
export function requestDepthFault(input: unknown): Fault | undefined {
  if (nestingDepth(input, MAX_REQUEST_DEPTH) <= MAX_REQUEST_DEPTH) return undefined;
  return new Fault('SerializationException', `Request body is nested deeper than ${MAX_REQUEST_DEPTH} levels`);
}
