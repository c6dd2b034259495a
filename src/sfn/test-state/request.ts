import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { parseRoleArn } from '../arns.js';
import { readDefinition } from '../definition-input.js';
import { MAX_SFN_PAYLOAD, payloadProblem } from '../operations/start-request.js';

export type InspectionLevel = 'INFO' | 'DEBUG' | 'TRACE';

/** A mocked answer of the state's work: its result, or an error. */
export type TestMock =
  | { result: unknown; errorOutput?: undefined }
  | { result?: undefined; errorOutput: { error: string; cause?: string } };

/** What `stateConfiguration` says about the attempt under test. */
export interface TestStateConfiguration {
  retrierRetryCount?: number;
  errorCausedByState?: string;
  mapIterationFailureCount?: number;
  mapItemReaderData?: string;
}

/** A TestState request, read and checked. */
export interface TestStateRequest {
  definition: string;
  roleArn?: string;
  input: unknown;
  level: InspectionLevel;
  stateName?: string;
  variables: Record<string, unknown>;
  mock?: TestMock;
  /** `$$` as the caller gives it (only with a mock). */
  context?: Record<string, unknown>;
  config: TestStateConfiguration;
}

const MAX_INT = 2 ** 31 - 1;

/** A JSON object member (`variables`, `context`); anything else → ValidationException. */
function jsonObject(text: string | undefined, member: string): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let v: unknown;
  try { v = JSON.parse(text); } catch { v = undefined; }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Fault('ValidationException', `The ${member} must be a JSON object literal`);
  return v as Record<string, unknown>;
}

function readMock(r: InputReader): { result?: string; errorOutput?: { error?: string; cause?: string } } {
  const result = r.str('result', { max: MAX_SFN_PAYLOAD });
  const errorOutput = r.struct('errorOutput', false, (e) => ({ error: e.str('error', { max: 256 }), cause: e.str('cause', { max: 32_768 }) }));
  r.str('fieldValidationMode', { max: 16, oneOf: ['STRICT', 'PRESENT', 'NONE'] });
  return { result, errorOutput };
}

function checkedMock(raw: { result?: string; errorOutput?: { error?: string; cause?: string } }): TestMock {
  if (raw.result !== undefined && raw.errorOutput !== undefined) {
    throw new Fault('ValidationException', 'A test mock should have only one of the following fields: [result, errorOutput].');
  }
  if (raw.errorOutput !== undefined) {
    if (raw.errorOutput.error === undefined) throw new Fault('ValidationException', 'The error field is required when mock.errorOutput is specified.');
    return { errorOutput: { error: raw.errorOutput.error, ...(raw.errorOutput.cause !== undefined ? { cause: raw.errorOutput.cause } : {}) } };
  }
  if (raw.result === undefined) throw new Fault('ValidationException', 'A test mock should have one of the following fields: [result, errorOutput].');
  try {
    return { result: JSON.parse(raw.result) };
  } catch {
    throw new Fault('ValidationException', 'Mocked result must be valid JSON');
  }
}

/** Reads a TestState request: the model's lengths and enums, then the JSON members and the rules between them. */
export function readTestStateRequest(input: unknown): TestStateRequest {
  const r = InputReader.of(input);
  const definition = readDefinition(r, true)!;
  const roleArn = r.str('roleArn', { min: 1, max: 256 });
  const inputText = r.str('input', { max: MAX_SFN_PAYLOAD });
  const level = (r.str('inspectionLevel', { max: 16, oneOf: ['INFO', 'DEBUG', 'TRACE'] }) ?? 'INFO') as InspectionLevel;
  const revealSecrets = r.bool('revealSecrets') ?? false;
  const variablesText = r.str('variables', { max: MAX_SFN_PAYLOAD });
  const stateName = r.str('stateName', { min: 1, max: 80 });
  const rawMock = r.struct('mock', false, readMock);
  const contextText = r.str('context', { max: MAX_SFN_PAYLOAD });
  const config = r.struct('stateConfiguration', false, (c): TestStateConfiguration => ({
    retrierRetryCount: c.int('retrierRetryCount', { min: 0, max: MAX_INT }),
    errorCausedByState: c.str('errorCausedByState', { min: 1, max: 80 }),
    mapIterationFailureCount: c.int('mapIterationFailureCount', { min: 0, max: MAX_INT }),
    mapItemReaderData: c.str('mapItemReaderData', { max: MAX_SFN_PAYLOAD }),
  })) ?? {};
  r.done();
  if (roleArn !== undefined) parseRoleArn(roleArn, 'roleArn');
  const text = inputText ?? '{}';
  const problem = payloadProblem(text);
  if (problem) throw new Fault('InvalidExecutionInput', `Invalid State Machine Execution Input: 'input ${problem}'`);
  if (rawMock !== undefined && revealSecrets) throw new Fault('ValidationException', 'TestState does not support RevealSecrets when a mock is specified.');
  const mock = rawMock === undefined ? undefined : checkedMock(rawMock);
  if (contextText !== undefined && mock === undefined) {
    throw new Fault('ValidationException', 'The context field may only be specified if a mock is specified in the same request.');
  }
  return {
    definition, ...(roleArn !== undefined ? { roleArn } : {}), input: JSON.parse(text), level,
    ...(stateName !== undefined ? { stateName } : {}),
    variables: jsonObject(variablesText, 'variables') ?? {},
    ...(mock ? { mock } : {}),
    ...(contextText !== undefined ? { context: jsonObject(contextText, 'context') } : {}),
    config,
  };
}
