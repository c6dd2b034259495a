import { describe, expect, it } from 'vitest';
import { isInvalidDefinition, parseDefinition, type DefinitionProblem } from '../../src/sfn/asl/validate-definition.js';
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
});

describe('parseDefinition accepts the JSONata and variable forms AWS documents', () => {
  it.each(VALID_JSONATA)('%s', (_what, definition) => {
    expect(parseDefinition(JSON.stringify(definition))).toEqual(definition);
  });
});
