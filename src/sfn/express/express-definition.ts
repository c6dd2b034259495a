import { at, atIndex, type DefinitionProblem } from '../asl/definition-problems.js';

const ACTIVITY_ARN = /^arn:[^:]*:states:[^:]*:[^:]*:activity:/;
/** The service integration patterns EXPRESS refuses (it runs request-response only). */
const PATTERN = /\.(sync:2|sync|waitForTaskToken)$/;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What an EXPRESS state machine's definition may not hold, as AWS refuses it at CreateStateMachine
 * and UpdateStateMachine: activity Task states and the `.sync` / `.waitForTaskToken` patterns (AWS:
 * `SCHEMA_VALIDATION_FAILED: Express state machine does not support Activity ARN at /States/X/Resource`).
 * Walks Parallel branches and Map processors too. The definition is already valid JSON.
 */
export function expressProblems(definition: unknown, path = ''): DefinitionProblem[] {
  const out: DefinitionProblem[] = [];
  const states = isObject(definition) ? definition.States : undefined;
  if (!isObject(states)) return out;
  for (const [name, state] of Object.entries(states)) {
    if (!isObject(state)) continue;
    const here = at(at(path, 'States'), name);
    const resource = state.Resource;
    if (state.Type === 'Task' && typeof resource === 'string') {
      const where = at(here, 'Resource');
      const pattern = PATTERN.exec(resource)?.[1];
      if (ACTIVITY_ARN.test(resource)) out.push({ code: 'SCHEMA_VALIDATION_FAILED', path: where, message: 'Express state machine does not support Activity ARN' });
      else if (pattern) out.push({ code: 'SCHEMA_VALIDATION_FAILED', path: where, message: `Express state machine does not support '.${pattern}' service integration` });
    }
    if (state.Type === 'Parallel' && Array.isArray(state.Branches)) {
      state.Branches.forEach((b, i) => out.push(...expressProblems(b, atIndex(at(here, 'Branches'), i))));
    }
    if (state.Type === 'Map') {
      if (isObject(state.ItemProcessor)) out.push(...expressProblems(state.ItemProcessor, at(here, 'ItemProcessor')));
      if (isObject(state.Iterator)) out.push(...expressProblems(state.Iterator, at(here, 'Iterator')));
    }
  }
  return out;
}
