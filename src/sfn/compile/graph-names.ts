import type { StateGraph } from '../asl/types.js';
import type { NodeKit } from './state-nodes.js';

/** The names a graph machine uses besides the ASL state names, chosen so they never collide with them. */
export interface GraphNames extends NodeKit {
  start: string;
  /** A child graph's first state: it waits for `sfn.go` from its parent (see graph-machine.ts). */
  waitKey: string;
  succeededKey: string;
  failedKey: string;
  timedOut: string;
  aborted: string;
  /** The root's first state: routes to StartAt, or to where a redrive starts again (see redrive-start.ts). */
  begin: string;
  /** `src` of a Parallel branch / Map iterator machine in this graph's setup. */
  srcOf(state: string, branch: number): string;
  /** A short child-id tag for a state: its name without `/`, `#` (which child ids and task keys use), unique. */
  tagOf(state: string): string;
}

/** Escapes a state key for an XState target path (`.` separates keys, `\` escapes). */
function escapeKey(key: string): string {
  return key.replace(/[\\.]/g, (c) => `\\${c}`);
}

export function graphNames(graph: StateGraph, machineId: string): GraphNames {
  const taken = new Set(Object.keys(graph.States));
  const free = (want: string): string => {
    let n = want;
    while (taken.has(n)) n = `${n}_`;
    taken.add(n);
    return n;
  };
  const waitKey = free('$start');
  const succeededKey = free('$succeeded');
  const failedKey = free('$failed');
  const timedOut = free('$timedOut');
  const aborted = free('$aborted');
  const begin = free('$begin');
  const tags = new Map<string, string>();
  const used = new Set<string>();
  for (const name of Object.keys(graph.States)) {
    let tag = name.replace(/[/#]/g, '_');
    for (let k = 2; used.has(tag); k += 1) tag = `${name.replace(/[/#]/g, '_')}~${k}`;
    used.add(tag);
    tags.set(name, tag);
  }
  const targetOf = (key: string) => `#${machineId}.${escapeKey(key)}`;
  return {
    start: graph.StartAt,
    waitKey, succeededKey, failedKey, timedOut, aborted, begin,
    succeeded: targetOf(succeededKey),
    failed: targetOf(failedKey),
    targetOf,
    srcOf: (state, branch) => `${tags.get(state)}:${branch}`,
    tagOf: (state) => tags.get(state)!,
  };
}
