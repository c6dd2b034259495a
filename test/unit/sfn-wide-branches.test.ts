import { createActor, SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { parseDefinition } from '../../src/sfn/asl/validate-definition.js';
import { compileStateMachine } from '../../src/sfn/compile/compile-state-machine.js';
import type { SfnRecord } from '../../src/sfn/compile/contract.js';
import { KIDS_PER_TURN } from '../../src/sfn/compile/kids.js';
import { executionInput, runCase, SFN_T0, testHooks } from '../helpers/sfn-driver.js';
import { A } from './sfn-case-builders.js';

const LIMIT_CAUSE = 'The execution reached the maximum number of history events (25000).';
/** `n` Pass states in a row, named `<tag>P0…` (state names are unique across a definition's branches). */
const pass = (n = 1, tag = '') => ({
  StartAt: `${tag}P0`,
  States: Object.fromEntries(Array.from({ length: n }, (_, i) => [`${tag}P${i}`, { Type: 'Pass', ...(i + 1 < n ? { Next: `${tag}P${i + 1}` } : { End: true }) }])),
});
const mapOf = (processor: object, extra: object = {}) => ({ StartAt: 'Each', States: { Each: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: processor, End: true, ...extra } } });

/** Starts an actor on a simulated clock and returns what it recorded before any timer fired. */
function firstTurn(definition: object, input: unknown) {
  const clock = new SimulatedClock();
  clock.set(SFN_T0);
  const records: SfnRecord[] = [];
  const { machine } = compileStateMachine(parseDefinition(JSON.stringify(definition)), { clock, hooks: testHooks((_id, r) => { records.push(r); }, input) });
  const actor = createActor(machine, { id: 'root', clock, input: executionInput(input) }).start();
  return { clock, records, actor, count: (type: string) => records.filter((r) => r.type === type).length };
}

describe('wide Map and Parallel', () => {
  it(`a Map of 1,000 Pass iterations starts ${KIDS_PER_TURN} per turn and yields to the event loop (a 0 ms timer) in between`, () => {
    const t = firstTurn(mapOf(pass()), { items: Array.from({ length: 1000 }, (_, i) => i) });
    expect(t.count('MapIterationStarted')).toBe(KIDS_PER_TURN);
    expect(t.count('MapIterationSucceeded')).toBe(KIDS_PER_TURN);
    t.clock.increment(0);
    expect(t.count('MapIterationStarted')).toBe(2 * KIDS_PER_TURN);
    for (let i = 0; i < 100 && t.actor.getSnapshot().status === 'active'; i += 1) t.clock.increment(0);
    expect(t.actor.getSnapshot().output).toEqual({ status: 'SUCCEEDED', output: Array.from({ length: 1000 }, (_, i) => i) });
    t.actor.stop();
  });

  it('an inline Map runs at most 40 iterations at once (AWS), whatever MaxConcurrency says', () => {
    for (const extra of [{}, { MaxConcurrency: 0 }, { MaxConcurrency: 500 }]) {
      const t = firstTurn(mapOf({ StartAt: 'T', States: { T: { Type: 'Task', Resource: A, End: true } } }, extra), { items: Array.from({ length: 100 }, (_, i) => i) });
      t.clock.increment(0);
      t.clock.increment(0);
      expect(t.count('ActivityScheduled')).toBe(40);
      t.actor.stop();
    }
    const t = firstTurn(mapOf({ StartAt: 'T', States: { T: { Type: 'Task', Resource: A, End: true } } }, { MaxConcurrency: 3 }), { items: [1, 2, 3, 4, 5] });
    expect(t.count('ActivityScheduled')).toBe(3);
    t.actor.stop();
  });

  it('a Map of 10,000 Pass iterations fails at the 25,000-event limit, never past it (was 35,002)', () => {
    const r = runCase({ name: 'map-10k', definition: mapOf(pass()), input: { items: Array.from({ length: 10_000 }, (_, i) => i) }, expect: { status: 'FAILED' } }, { maxSteps: 100_000 });
    expect(r.output).toEqual({ status: 'FAILED', error: 'States.Runtime', cause: LIMIT_CAUSE });
    expect(r.events.length + 1).toBeLessThanOrEqual(25_000);
    expect(r.events.length + 1).toBeGreaterThan(24_900);
    expect(r.types.at(-1)).toBe('ExecutionFailed');
  });

  it('a Parallel of 5,000 branches of 3 Pass states fails at the limit, never past it (was 48,336); its branches share the count', () => {
    const def = { StartAt: 'Par', States: { Par: { Type: 'Parallel', Branches: Array.from({ length: 5000 }, (_, b) => pass(3, `b${b}`)), End: true } } };
    const r = runCase({ name: 'par-5k', definition: def, expect: { status: 'FAILED' } }, { maxSteps: 100_000 });
    expect(r.output).toEqual({ status: 'FAILED', error: 'States.Runtime', cause: LIMIT_CAUSE });
    expect(r.events.length + 1).toBeLessThanOrEqual(25_000);
    expect(r.events.length + 1).toBeGreaterThan(24_900);
  });

  it('a Parallel of 10,000 branches compiles without its branches: each branch compiles when it starts (was 4 s and 270 MB up front)', () => {
    const definition = parseDefinition(JSON.stringify({ StartAt: 'Par', States: { Par: { Type: 'Parallel', End: true, Branches: Array.from({ length: 10_000 }, (_, b) => pass(1, `b${b}`)) } } }));
    const t0 = performance.now();
    const { machine } = compileStateMachine(definition, { clock: new SimulatedClock(), hooks: testHooks(() => undefined, {}) });
    const ms = performance.now() - t0;
    // Up front it took 4–7 s on this 2-core machine; lazily ~40 ms. The bound allows a loaded machine.
    expect(ms).toBeLessThan(1500);
    const actors = (machine as unknown as { implementations: { actors: Record<string, unknown> } }).implementations.actors;
    expect(Object.keys(actors)).toHaveLength(10_000);
    // A branch's machine is made on demand and not kept (a Map's one iterator is).
    expect(actors['Par:7']).not.toBe(actors['Par:7']);
  });

  it('branches started in later turns get the same input as the first ones (Parameters with States.UUID() is evaluated once)', () => {
    const def = { StartAt: 'Par', States: { Par: { Type: 'Parallel', Parameters: { 'id.$': 'States.UUID()' }, Branches: Array.from({ length: 100 }, (_, b) => pass(1, `b${b}`)), End: true } } };
    const r = runCase({ name: 'par-uuid', definition: def, expect: { status: 'SUCCEEDED', output: null } }, { maxSteps: 10_000 });
    const out = (r.output as { output: Array<{ id: string }> }).output;
    expect(out).toHaveLength(100);
    expect(new Set(out.map((o) => o.id)).size).toBe(1);
  });

  it('crash, restore and rearm while a Map waits for its next turn: it resumes and finishes in item order', () => {
    const r = runCase({ name: 'map-crash', definition: mapOf(pass()), input: { items: Array.from({ length: 150 }, (_, i) => i) }, expect: { status: 'SUCCEEDED', output: null } }, { crash: true });
    expect(r.output).toEqual({ status: 'SUCCEEDED', output: Array.from({ length: 150 }, (_, i) => i) });
    expect(r.restores).toBeGreaterThan(1);
    expect(r.types.filter((t) => t === 'MapIterationSucceeded')).toHaveLength(150);
  });
});
