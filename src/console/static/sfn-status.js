// Where a Step Functions execution is, from its history: each state running, passed, failed or caught,
// with the input, output and error a click on it shows.

/** The details member of a wire event (`stateEnteredEventDetails`, `activityFailedEventDetails`, …). */
export function detailsOf(e) {
  for (const [k, v] of Object.entries(e)) if (k.endsWith('EventDetails')) return v;
  return {};
}

/** Each state's Catch targets, over the whole definition (state names are unique in a state machine). */
function catchTargets(graph, out = new Map(), types = new Map()) {
  for (const [name, s] of Object.entries(graph?.States ?? {})) {
    out.set(name, new Set((s.Catch ?? []).map((c) => c.Next)));
    types.set(name, s.Type);
    for (const b of s.Branches ?? []) catchTargets(b, out, types);
    if (s.ItemProcessor ?? s.Iterator) catchTargets(s.ItemProcessor ?? s.Iterator, out, types);
  }
  return { catches: out, types };
}

const FAILURE = /(Failed|TimedOut|ScheduleFailed|StartFailed|SubmitFailed)$/;

/**
 * name → { status, entered, exited, input, output, error, cause, retries, iterations (Map) }. A state is `running`
 * while entered more often than exited; `failed` when an error was raised in it and nothing caught it;
 * `caught` when a Catch of it moved the execution on; `passed` once exited.
 */
export function stateStatuses(events, definition) {
  const { catches, types } = catchTargets(definition);
  const states = new Map();
  const of = (name) => {
    let s = states.get(name);
    if (!s) states.set(name, (s = { status: 'idle', entered: 0, exited: 0, open: 0, retries: 0 }));
    return s;
  };
  const stack = []; // states entered and not yet exited, innermost last
  for (const e of events) {
    const d = detailsOf(e);
    if (e.type.endsWith('StateEntered')) {
      // A Catch of an errored state moves the execution to its target.
      for (let i = stack.length - 1; i >= 0; i--) {
        const x = of(stack[i]);
        if (x.failing && catches.get(stack[i])?.has(d.name)) {
          x.status = 'caught';
          x.open = 0;
          stack.splice(i, 1);
        }
      }
      const s = of(d.name);
      s.entered++;
      s.open++;
      s.status = 'running';
      s.failing = false;
      s.input = d.input;
      s.enteredAt = e.timestamp;
      stack.push(d.name);
      if (e.type === 'FailStateEntered') { s.status = 'failed'; s.open = 0; }
    } else if (e.type.endsWith('StateExited')) {
      const s = of(d.name);
      s.exited++;
      s.open = Math.max(0, s.open - 1);
      s.output = d.output;
      // Left with an error raised and not retried: a Catch took it (AWS records the exit then too).
      if (s.open === 0) s.status = s.failing ? 'caught' : 'passed';
      s.failing = false;
      const i = stack.lastIndexOf(d.name);
      if (i >= 0) stack.splice(i, 1);
    } else if (e.type === 'MapIterationStarted') {
      const map = [...stack].reverse().find((n) => types.get(n) === 'Map');
      if (map !== undefined) of(map).iterations = (of(map).iterations ?? 0) + 1;
    } else if (e.type === 'ParallelStateFailed' || e.type === 'MapStateFailed') {
      // The branch states left open end with it; the group itself holds the error now.
      while (stack.length && !/^(Parallel|Map)$/.test(types.get(stack[stack.length - 1]))) {
        const inner = of(stack.pop());
        if (inner.status === 'running') inner.status = inner.error !== undefined ? 'failed' : 'aborted';
        inner.open = 0;
      }
      const name = stack[stack.length - 1];
      if (name !== undefined) Object.assign(of(name), { error: 'States.BranchFailed', failing: true });
    } else if (FAILURE.test(e.type) && !e.type.startsWith('Execution')) {
      const name = stack[stack.length - 1];
      if (name !== undefined) {
        const s = of(name);
        if (s.error !== undefined) s.retries++;
        s.error = d.error ?? e.type;
        s.cause = d.cause;
        s.failing = true;
      }
    } else if (/Scheduled$/.test(e.type)) {
      // A retry schedules the work again.
      const name = stack[stack.length - 1];
      if (name !== undefined) of(name).failing = false;
    } else if (e.type === 'ExecutionFailed' || e.type === 'ExecutionTimedOut' || e.type === 'ExecutionAborted') {
      for (const name of stack) {
        const s = of(name);
        if (s.status === 'running') s.status = s.failing || e.type !== 'ExecutionAborted' ? 'failed' : 'aborted';
      }
      stack.length = 0;
    }
  }
  return states;
}
