import { describe, expect, it } from 'vitest';
import { isInvalidDefinition, parseDefinition, type DefinitionProblem } from '../../src/sfn/asl/validate-definition.js';
import { machineQueryLanguage, stateQueryLanguage } from '../../src/sfn/asl/validate-query-language.js';
import { BAD_JSONATA, VALID_JSONATA } from '../helpers/sfn-jsonata-definitions.js';

/*
 * JSONata and variables in parseDefinition: each mistake is refused with its AWS code, path and
 * message (and nothing else about the same field); each valid form comes back unchanged.
 * test/integration/sfn-jsonata-definitions.test.ts sends the same tables through the AWS SDK.
 */

function problemsOf(definition: object): readonly DefinitionProblem[] {
  try {
    parseDefinition(JSON.stringify(definition));
  } catch (e) {
    if (isInvalidDefinition(e)) return e.problems;
    throw e;
  }
  throw new Error(`accepted: ${JSON.stringify(definition).slice(0, 200)}`);
}

describe('parseDefinition refuses JSONata and variable mistakes', () => {
  it.each(BAD_JSONATA)('%s', (_what, definition, code, path, message) => {
    const problems = problemsOf(definition);
    expect(problems, JSON.stringify(problems, null, 1)).toContainEqual({ code, path, message });
    // One mistake, one answer: nothing else is reported at the same place.
    expect(problems.filter((p) => p.path === path), JSON.stringify(problems, null, 1)).toHaveLength(1);
  });

  it('has at least 30 mistakes', () => {
    expect(BAD_JSONATA.length).toBeGreaterThanOrEqual(30);
  });

  it('refuses an expression nested past the stack, without crashing', () => {
    const deep = `{% ${'['.repeat(200_000)}${']'.repeat(200_000)} %}`;
    const problems = problemsOf({ QueryLanguage: 'JSONata', StartAt: 'S', States: { S: { Type: 'Pass', Output: deep, End: true } } });
    expect(problems.map((p) => `${p.code} ${p.path}`)).toEqual(['INVALID_JSONATA_EXPRESSION /States/S/Output']);
  });
});

describe('the query language of a state', () => {
  it.each([
    [undefined, undefined, 'JSONPath'], [undefined, 'JSONata', 'JSONata'], ['JSONata', undefined, 'JSONata'],
    ['JSONPath', 'JSONata', 'JSONata'], ['JSONata', 'JSONPath', 'JSONPath'],
    // Outside the enum (refused, but resolved as AWS resolves it): only the exact 'JSONPath' is JSONPath.
    ['jsonpath', undefined, 'JSONata'], [undefined, 'jsonpath', 'JSONata'], [5, undefined, 'JSONata'],
  ] as const)('machine %s, state %s: %s', (machine, state, expected) => {
    const language = stateQueryLanguage(machineQueryLanguage(machine === undefined ? {} : { QueryLanguage: machine }), state === undefined ? {} : { QueryLanguage: state });
    expect(language).toBe(expected);
  });
});

describe('parseDefinition accepts the JSONata and variable forms AWS documents', () => {
  it.each(VALID_JSONATA)('%s', (_what, definition) => {
    expect(parseDefinition(JSON.stringify(definition))).toEqual(definition);
  });
});
