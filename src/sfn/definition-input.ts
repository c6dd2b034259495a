import { randomUUID } from 'node:crypto';
import { Fault } from '../protocol/faults.js';
import type { InputReader } from '../protocol/validate.js';
import { InvalidDefinitionError, MAX_DEFINITION_LENGTH } from './asl/validate-definition.js';
import { validateDefinitionOffThread } from './kind/definition-parser.js';
import { expressProblems } from './express/express-definition.js';
import { checkLogging, readLogging, type SfnLoggingConfiguration } from './express/logging-config.js';
import type { StateMachineType } from './records.js';

/** Reads `definition`: length 1–1 MiB into `r`'s problems (checked by `checkDefinition` once `r.done()` passed). */
export function readDefinition(r: InputReader, required: boolean): string | undefined {
  return r.str('definition', { min: 1, max: MAX_DEFINITION_LENGTH, required });
}

/**
 * Validates States Language text; problems → InvalidDefinition with the validator's AWS-style
 * message. An EXPRESS definition is also checked for what EXPRESS does not run (activities, `.sync`,
 * `.waitForTaskToken`).
 */
export async function checkDefinition(text: string, type: StateMachineType = 'STANDARD'): Promise<void> {
  try {
    await validateDefinitionOffThread(text);
    if (type !== 'EXPRESS') return;
    const problems = expressProblems(JSON.parse(text));
    if (problems.length > 0) throw new InvalidDefinitionError(problems);
  } catch (e) {
    if (e instanceof InvalidDefinitionError) throw new Fault('InvalidDefinition', e.message);
    throw e;
  }
}

/** The options of CreateStateMachine and UpdateStateMachine beside definition, name, role and tags. */
export interface StateMachineOptions {
  type?: StateMachineType;
  loggingConfiguration?: SfnLoggingConfiguration;
}

/**
 * Reads the options (type, logging, tracing, `publish`, `versionDescription`) and throws `r`'s
 * problems; then AWS's logging rules (InvalidLoggingConfiguration). Tracing is accepted and not
 * used; `publish` and `versionDescription` are acted on by the caller.
 */
export function readOptions(r: InputReader): StateMachineOptions {
  const type = r.str('type', { max: 16, oneOf: ['STANDARD', 'EXPRESS'] }) as StateMachineType | undefined;
  r.bool('publish');
  r.str('versionDescription', { max: 256 });
  const loggingConfiguration = readLogging(r);
  r.struct('tracingConfiguration', false, (t) => t.bool('enabled'));
  r.done();
  checkLogging(loggingConfiguration);
  return { ...(type ? { type } : {}), ...(loggingConfiguration ? { loggingConfiguration } : {}) };
}

/** A fresh revision id (changes with every update). */
export const newRevisionId = (): string => randomUUID();
