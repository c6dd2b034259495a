import { at, atIndex, type Problems } from './definition-problems.js';
import { jsonataValue, type ExpressionScope } from './validate-jsonata.js';
import { stateQueryLanguage, type QueryLanguage } from './validate-query-language.js';
import { variableNameProblem } from './validate-variable-paths.js';
import { isObj, payloadTemplate, typed, type Obj } from './validate-values.js';

/**
 * `Assign` (on a state, a top-level Choice rule or a catcher) and the scope rule of workflow
 * variables. AWS: a variable name is a Unicode identifier of at most 80 characters and not
 * `states`; one Assign holds at most 256 KiB; a JSONPath Assign is a payload template (`x.$`), a
 * JSONata one holds literals and `{% %}` expressions; a Parallel branch or Map iteration is an
 * inner scope, and a variable assigned in an inner scope may not have the name of one assigned
 * in an enclosing scope. Reading a variable nothing assigned is not a definition error: AWS
 * accepts it and fails the state when it runs (States.QueryEvaluationError / States.Runtime).
 */

/** The largest Assign, in bytes of JSON: 256 KiB (for all the variables it assigns together). */
export const MAX_ASSIGN_BYTES = 262_144;

/** The variable an Assign member names: in JSONPath without its `.$`. */
function assignedName(key: string, language: QueryLanguage): string {
  return language === 'JSONPath' && key.endsWith('.$') ? key.slice(0, -2) : key;
}

/** The `Assign` member of `obj` at `path` (`/States/S`, `/States/S/Catch[0]`, `/States/C/Choices[1]`). */
export function validateAssign(p: Problems, path: string, obj: Obj, language: QueryLanguage, scope: ExpressionScope): void {
  if (obj.Assign === undefined || !typed(p, path, obj, 'Assign', 'OBJECT')) return;
  const assign = obj.Assign as Obj;
  const assignPath = at(path, 'Assign');
  for (const key of Object.keys(assign)) {
    const problem = variableNameProblem(assignedName(key, language));
    if (problem) p.schema(at(assignPath, key), problem);
  }
  const bytes = Buffer.byteLength(JSON.stringify(assign), 'utf8');
  if (bytes > MAX_ASSIGN_BYTES) {
    p.schema(assignPath, `The Assign field is ${bytes} bytes of JSON; the variables of one Assign may hold at most ${MAX_ASSIGN_BYTES} bytes (256 KiB)`);
  }
  if (language === 'JSONPath') payloadTemplate(p, path, obj, 'Assign');
  else jsonataValue(p, assignPath, assign, scope);
}

/** Where a name was assigned, by name, in one scope. */
type Assigned = Map<string, string>;

/**
 * The scope rule over the graph `graph` at `path` (the top level: `''`), whose enclosing scopes
 * assigned `outer`. Call only on a definition whose structure is valid.
 */
export function validateVariableScopes(p: Problems, graph: Obj, path: string, machine: QueryLanguage, outer: ReadonlySet<string> = new Set()): void {
  const states = graph.States as Record<string, Obj>;
  const here: Assigned = new Map();
  for (const [name, state] of Object.entries(states)) collectAssigned(here, at(at(path, 'States'), name), state, stateQueryLanguage(machine, state));
  for (const [name, where] of here) {
    if (outer.has(name)) p.schema(where, `The variable '${name}' is assigned in an enclosing scope; a Parallel branch or Map iteration may not assign a variable of the same name`);
  }
  const inner = new Set([...outer, ...here.keys()]);
  for (const [name, state] of Object.entries(states)) {
    const statePath = at(at(path, 'States'), name);
    if (state.Type === 'Parallel') (state.Branches as Obj[]).forEach((b, i) => validateVariableScopes(p, b, atIndex(at(statePath, 'Branches'), i), machine, inner));
    if (state.Type === 'Map') {
      const key = state.ItemProcessor !== undefined ? 'ItemProcessor' : 'Iterator';
      validateVariableScopes(p, state[key] as Obj, at(statePath, key), machine, inner);
    }
  }
}

/** The names a state assigns in its own scope: its Assign, its Choice rules' and its catchers'. */
function collectAssigned(into: Assigned, path: string, state: Obj, language: QueryLanguage): void {
  const add = (objPath: string, obj: unknown): void => {
    if (!isObj(obj) || !isObj(obj.Assign)) return;
    for (const key of Object.keys(obj.Assign)) {
      const name = assignedName(key, language);
      if (!into.has(name)) into.set(name, at(at(objPath, 'Assign'), key));
    }
  };
  add(path, state);
  for (const list of ['Choices', 'Catch'] as const) {
    if (Array.isArray(state[list])) (state[list] as unknown[]).forEach((entry, i) => add(atIndex(at(path, list), i), entry));
  }
}
