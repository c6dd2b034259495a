import { InputReader } from '../../protocol/validate.js';
import { InvalidDefinitionError } from '../asl/validate-definition.js';
import { validateDefinitionOffThread } from '../kind/definition-parser.js';
import { readDefinition } from '../definition-input.js';
import { expressProblems } from '../express/express-definition.js';

/** The most diagnostics one answer holds (the model's maxResults bound, and its default). */
const MAX_DIAGNOSTICS = 100;

/**
 * ValidateStateMachineDefinition: the definition checked as CreateStateMachine checks it, answered
 * as a result (OK or FAIL) and diagnostics (severity, code, message, location), at most
 * `maxResults` of them (`truncated` when there were more). Every problem the validator finds is an
 * ERROR; `severity: WARNING` asks for warnings too, and it finds none.
 */
export async function validateStateMachineDefinition(_ctx: unknown, input: unknown): Promise<object> {
  const r = InputReader.of(input);
  const definition = readDefinition(r, true)!;
  const type = r.str('type', { max: 16, oneOf: ['STANDARD', 'EXPRESS'] });
  r.str('severity', { max: 16, oneOf: ['ERROR', 'WARNING'] });
  const max = r.int('maxResults', { min: 0, max: MAX_DIAGNOSTICS }) || MAX_DIAGNOSTICS;
  r.done();
  try {
    await validateDefinitionOffThread(definition);
    const express = type === 'EXPRESS' ? expressProblems(JSON.parse(definition)) : [];
    if (express.length > 0) throw new InvalidDefinitionError(express);
    return { result: 'OK', diagnostics: [], truncated: false };
  } catch (e) {
    if (!(e instanceof InvalidDefinitionError)) throw e;
    const diagnostics = e.problems.map((p) => ({ severity: 'ERROR', code: p.code, message: p.message, ...(p.path !== '' ? { location: p.path } : {}) }));
    return { result: 'FAIL', diagnostics: diagnostics.slice(0, max), truncated: diagnostics.length > max };
  }
}
