import { Fault } from '../../protocol/faults.js';
import type { AslDefinition, MapState, ParallelState, State, StateGraph } from '../asl/types.js';
import { InvalidDefinitionError } from '../asl/validate-definition.js';
import { parseDefinitionOffThread } from '../kind/definition-parser.js';
import { settleQueryLanguage } from '../compile/compile-state-machine.js';

/** The name a single-state definition's state goes by (`$$.State.Name`), as AWS names it. */
export const SINGLE_STATE_NAME = 'StateName';

/** The state TestState runs, found in its definition. */
export interface StateUnderTest {
  name: string;
  def: State;
  /** The state is inside a Map's ItemProcessor (its `$$` gets a `Map.Item`). */
  inMap: boolean;
}

/** The definition validated as CreateStateMachine validates it (large ones off the event loop); problems → InvalidDefinition. */
async function parsed(text: string): Promise<AslDefinition> {
  try {
    return await parseDefinitionOffThread(text);
  } catch (e) {
    if (e instanceof InvalidDefinitionError) throw new Fault('InvalidDefinition', e.message);
    throw e;
  }
}

/** Every state a state may move to (Next, Default, a Choice rule's or a catcher's Next). */
function targets(state: Record<string, unknown>): string[] {
  const out: unknown[] = [state.Next, state.Default];
  for (const list of [state.Choices, state.Catch]) {
    if (Array.isArray(list)) for (const c of list) out.push((c as { Next?: unknown } | null)?.Next);
  }
  return out.filter((t): t is string => typeof t === 'string');
}

/**
 * A single state's definition, validated as one state of a state machine: the states it moves to
 * are stand-ins (AWS tests a state whose Next names nothing in the definition).
 */
async function singleState(text: string): Promise<AslDefinition> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parsed(text); // the validator's own words for text that is not JSON
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return parsed(text);
  const name = JSON.stringify(SINGLE_STATE_NAME);
  const stubs = [...new Set(targets(value as Record<string, unknown>))]
    .filter((t) => t !== SINGLE_STATE_NAME)
    .map((t) => `,${JSON.stringify(t)}:{"Type":"Succeed"}`);
  // The state's own text stays as written: the validator finds duplicate keys in it.
  return parsed(`{"StartAt":${name},"States":{${name}:${text}${stubs.join('')}}}`);
}

/** The state called `name` anywhere in `graph` (names are unique machine-wide). */
function find(graph: StateGraph, name: string, inMap: boolean): StateUnderTest | undefined {
  for (const [n, def] of Object.entries(graph.States)) {
    if (n === name) return { name, def, inMap };
    const inner = def.Type === 'Parallel' ? (def as ParallelState).Branches.map((b) => find(b, name, inMap))
      : def.Type === 'Map' ? [find((def as MapState).ItemProcessor, name, true)] : [];
    const hit = inner.find((x) => x !== undefined);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * The state to test: `definition` is one state, or with `stateName` a whole state machine holding
 * it (at any depth). An invalid definition → InvalidDefinition with the validator's problems.
 */
export async function stateUnderTest(definition: string, stateName: string | undefined): Promise<StateUnderTest> {
  const machine = await (stateName === undefined ? singleState(definition) : parsed(definition));
  settleQueryLanguage(machine, machine.QueryLanguage ?? 'JSONPath');
  const found = find(machine, stateName ?? SINGLE_STATE_NAME, false);
  if (!found) throw new Fault('ValidationException', `State '${stateName}' does not exist in the definition`);
  return found;
}
