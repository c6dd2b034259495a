import { at, InvalidDefinitionError, Problems, type DefinitionProblem } from './definition-problems.js';
import { duplicateKeys } from './json-duplicate-keys.js';
import { nestingDepth } from '../../protocol/nesting.js';
import type { AslDefinition } from './types.js';
import { validateGraph } from './validate-graph.js';
import { machineQueryLanguage, queryLanguageValue } from './validate-query-language.js';
import { integerIn, isObj, onlyFields, type Obj } from './validate-values.js';
import { validateVariableScopes } from './validate-variables.js';

export { InvalidDefinitionError, isInvalidDefinition, type DefinitionProblem } from './definition-problems.js';

/** The longest definition CreateStateMachine accepts (AWS: a length constraint of 1,048,576 characters). */
export const MAX_DEFINITION_LENGTH = 1024 * 1024;

/** AWS's answer to a blank definition or one that is not a JSON object (no location). */
const NOT_AN_OBJECT: DefinitionProblem = { code: 'SCHEMA_VALIDATION_FAILED', path: '', message: 'Definition must be a valid JSON object' };

/**
 * How deep a definition may nest. AWS documents no bound; this one keeps the validator and the
 * evaluation of templates and Choice rules (which walk the definition recursively) far from the
 * stack limit, which a definition nested a few thousand levels deep reaches.
 */
export const MAX_DEFINITION_DEPTH = 1000;
const TOO_DEEP: DefinitionProblem = { code: 'TOO_DEEPLY_NESTED', path: '/', message: 'The states are too deeply nested.' };

const TOP_FIELDS = new Set(['StartAt', 'States', 'Comment', 'Version', 'TimeoutSeconds', 'QueryLanguage']);

/**
 * Parses and validates a States Language definition (JSONPath and JSONata, activity Task states), and
 * returns it normalised (Map: `Iterator` → `ItemProcessor`, `Parameters` → `ItemSelector`).
 * Throws InvalidDefinitionError listing every problem found.
 */
export function parseDefinition(text: string): AslDefinition {
  if (typeof text !== 'string' || text.trim() === '') throw new InvalidDefinitionError([NOT_AN_OBJECT]);
  if (text.length > MAX_DEFINITION_LENGTH) {
    throw new InvalidDefinitionError([{
      code: 'SCHEMA_VALIDATION_FAILED', path: '/', message: `The definition is ${text.length} characters long; the limit is ${MAX_DEFINITION_LENGTH}`,
    }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // V8's text, without the "(line 1 column 29)" that Node 22+ append: the same answer on every
    // supported Node version.
    const message = (e as Error).message.replace(/ \(line \d+ column \d+\)$/, '');
    throw new InvalidDefinitionError([{ code: 'INVALID_JSON_DESCRIPTION', path: '', message }]);
  }
  const p = new Problems();
  for (const { path, key } of duplicateKeys(text)) {
    if (path.endsWith('/States')) p.add('DUPLICATE_STATE_NAME', at(path, key), `Duplicate State name: ${key}`);
    else p.schema(path, `Duplicate field '${key}'`);
  }
  return validate(value, p);
}

/** Validates an already parsed definition; see parseDefinition. The value is normalised in place. */
export function validateDefinition(value: unknown): AslDefinition {
  return validate(value, new Problems());
}

function validate(value: unknown, p: Problems): AslDefinition {
  if (!isObj(value)) throw new InvalidDefinitionError([...p.list, NOT_AN_OBJECT]);
  onlyFields(p, '', value, TOP_FIELDS);
  if (value.Version !== undefined && value.Version !== '1.0') p.schema(at('', 'Version'), 'Value should be one of the following: [1.0]');
  integerIn(p, '', value, 'TimeoutSeconds', 1);
  queryLanguageValue(p, '', value);
  const machine = machineQueryLanguage(value);
  if (nestingDepth(value, MAX_DEFINITION_DEPTH) > MAX_DEFINITION_DEPTH) throw new InvalidDefinitionError([...p.list, TOO_DEEP]);
  try {
    validateGraph(p, new Map(), value, '', machine);
    // The scope rule of variables reads the whole graph: only once its structure is sound.
    if (p.count === 0) validateVariableScopes(p, value, '', machine);
  } catch (e) {
    // Only a pathologically nested definition (Not inside Not…, thousands deep) gets here.
    if (!(e instanceof RangeError)) throw e;
    p.list.push(TOO_DEEP);
  }
  if (p.count > 0) throw new InvalidDefinitionError(p.list);
  normaliseGraph(value);
  return value as unknown as AslDefinition;
}

/**
 * A definition that parseDefinition accepted, read again without the checks (a worker thread
 * validated it; parsing the text here is cheaper than receiving the parsed object from it).
 */
export function readValidatedDefinition(text: string): AslDefinition {
  const value = JSON.parse(text) as Obj;
  normaliseGraph(value);
  return value as unknown as AslDefinition;
}

/** Map states get the current field names: `ItemProcessor` and `ItemSelector`. */
function normaliseGraph(graph: Obj): void {
  for (const state of Object.values(graph.States as Record<string, Obj>)) {
    if (state.Type === 'Parallel') (state.Branches as Obj[]).forEach(normaliseGraph);
    if (state.Type !== 'Map') continue;
    if (state.Iterator !== undefined) {
      state.ItemProcessor = state.Iterator;
      delete state.Iterator;
    }
    if (state.Parameters !== undefined) {
      state.ItemSelector = state.Parameters;
      delete state.Parameters;
    }
    normaliseGraph(state.ItemProcessor as Obj);
  }
}
