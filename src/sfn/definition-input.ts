import { randomUUID } from 'node:crypto';
import { Fault } from '../protocol/faults.js';
import type { InputReader } from '../protocol/validate.js';
import { InvalidDefinitionError, MAX_DEFINITION_LENGTH } from './asl/validate-definition.js';
import { validateDefinitionOffThread } from './kind/definition-parser.js';

/** Reads `definition`: length 1–1 MiB into `r`'s problems (checked by `checkDefinition` once `r.done()` passed). */
export function readDefinition(r: InputReader, required: boolean): string | undefined {
  return r.str('definition', { min: 1, max: MAX_DEFINITION_LENGTH, required });
}

/** Validates States Language text; problems → InvalidDefinition with the validator's AWS-style message. */
export async function checkDefinition(text: string): Promise<void> {
  try {
    await validateDefinitionOffThread(text);
  } catch (e) {
    if (e instanceof InvalidDefinitionError) throw new Fault('InvalidDefinition', e.message);
    throw e;
  }
}

/**
 * Options this engine does not implement are refused, never silently dropped: EXPRESS state machines.
 * Logging and tracing configurations are accepted and not used; `publish` and `versionDescription`
 * are read here and acted on by the caller.
 */
export function refuseUnsupported(r: InputReader, body: Record<string, unknown>): void {
  r.str('type', { max: 16, oneOf: ['STANDARD', 'EXPRESS'] });
  r.bool('publish');
  r.str('versionDescription', { max: 256 });
  r.struct('loggingConfiguration', false, () => undefined);
  r.struct('tracingConfiguration', false, () => undefined);
  r.done();
  if (body.type === 'EXPRESS') throw new Fault('ValidationException', 'EXPRESS state machines are not supported: use type STANDARD');
}

/** A fresh revision id (changes with every update). */
export const newRevisionId = (): string => randomUUID();
