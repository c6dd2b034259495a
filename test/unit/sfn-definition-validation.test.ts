import { describe, expect, it } from 'vitest';
import {
  InvalidDefinitionError, isInvalidDefinition, MAX_DEFINITION_LENGTH, parseDefinition, type DefinitionProblem,
} from '../../src/sfn/asl/validate-definition.js';

/*
 * Amazon States Language validation: every rule with a small bad definition (the AWS code and the
 * path it is reported at), then valid definitions of every state type, which come back unchanged or
 * with legacy Map fields renamed.
 */

const ACT = 'arn:aws:states:us-east-1:123456789012:activity:work';
type States = Record<string, Record<string, unknown>>;

/** A definition starting at its first state. */
function def(states: States, top: Record<string, unknown> = {}): string {
  return JSON.stringify({ StartAt: Object.keys(states)[0], States: states, ...top });
}

/** One state `S` (plus an `End` state for the transitions a case needs). */
function one(state: Record<string, unknown>, top: Record<string, unknown> = {}): string {
  return def({ S: state, End: { Type: 'Succeed' } }, top);
}

const task = (extra: Record<string, unknown> = {}) => one({ Type: 'Task', Resource: ACT, Next: 'End', ...extra });
const choice = (rule: Record<string, unknown>) => one({ Type: 'Choice', Choices: [{ Next: 'End', ...rule }] });
const cmp = (op: Record<string, unknown>) => choice({ Variable: '$.x', ...op });
const wait = (fields: Record<string, unknown>) => one({ Type: 'Wait', Next: 'End', ...fields });
const fail = (fields: Record<string, unknown>) => def({ F: { Type: 'Fail', ...fields } });
const retry = (...retriers: Record<string, unknown>[]) => task({ Retry: retriers });
const catches = (...catchers: Record<string, unknown>[]) => task({ Catch: catchers });
const branch = (states: States) => ({ StartAt: Object.keys(states)[0], States: states });
const parallel = (...branches: unknown[]) => one({ Type: 'Parallel', Branches: branches, Next: 'End' });
const map = (fields: Record<string, unknown>) => one({ Type: 'Map', Next: 'End', ...fields });
const processor = branch({ Item: { Type: 'Pass', End: true } });

function problemsOf(text: string): readonly DefinitionProblem[] {
  try {
    parseDefinition(text);
  } catch (e) {
    if (isInvalidDefinition(e)) return e.problems;
    throw e;
  }
  throw new Error(`accepted: ${text.slice(0, 200)}`);
}

// [what, definition, code, path (exact), message (exact, AWS's wording where AWS's is known)]
const BAD: [string, string, string, string, string][] = [
  ['not JSON', '{"StartAt": "A", "States": {', 'INVALID_JSON_DESCRIPTION', '', "Expected property name or '}' in JSON at position 28"],
  ['empty text', '  ', 'SCHEMA_VALIDATION_FAILED', '', 'Definition must be a valid JSON object'],
  ['not an object', '[{"StartAt": "A"}]', 'SCHEMA_VALIDATION_FAILED', '', 'Definition must be a valid JSON object'],
  ['a JSON string', '"hello"', 'SCHEMA_VALIDATION_FAILED', '', 'Definition must be a valid JSON object'],
  ['missing StartAt', JSON.stringify({ States: { A: { Type: 'Succeed' } } }), 'SCHEMA_VALIDATION_FAILED', '/', 'These fields are required: [StartAt]'],
  ['StartAt naming no state', def({ A: { Type: 'Succeed' } }).replace('"StartAt":"A"', '"StartAt":"Nope"'), 'MISSING_TRANSITION_TARGET', '/StartAt', "Missing 'StartAt' target: Nope"],
  ['missing States', JSON.stringify({ StartAt: 'A' }), 'SCHEMA_VALIDATION_FAILED', '/', 'These fields are required: [States]'],
  ['empty States', JSON.stringify({ StartAt: 'A', States: {} }), 'SCHEMA_VALIDATION_FAILED', '/States', 'Value cannot be empty'],
  ['unknown top-level field', def({ A: { Type: 'Succeed' } }, { Foo: 1 }), 'SCHEMA_VALIDATION_FAILED', '/', "Field 'Foo' is not supported"],
  ['state name over 80 characters', def({ ['N'.repeat(81)]: { Type: 'Succeed' } }), 'INVALID_STATE_NAME', `/States/${'N'.repeat(81)}`, 'State name must be between 1 and 80 characters long'],
  ['unknown state Type', def({ A: { Type: 'Sleep', End: true } }), 'SCHEMA_VALIDATION_FAILED', '/States/A/Type', "The field 'Type' should have one of these values: [Task, Wait, Pass, Succeed, Fail, Choice, Parallel, Map]"],
  ['state without Type', def({ A: { End: true } }), 'SCHEMA_VALIDATION_FAILED', '/States/A', 'These fields are required: [Type]'],
  ['Result on a Task', task({ Result: 1 }), 'SCHEMA_VALIDATION_FAILED', '/States/S', "Field 'Result' is not supported"],
  ['Resource on a Pass', one({ Type: 'Pass', Resource: ACT, End: true }), 'SCHEMA_VALIDATION_FAILED', '/States/S', "Field 'Resource' is not supported"],
  ['Assign (variables) on a Succeed', one({ Type: 'Succeed', Assign: { a: 1 } }), 'SCHEMA_VALIDATION_FAILED', '/States/S', "Field 'Assign' is not supported"],
  ['neither Next nor End', def({ A: { Type: 'Pass' } }), 'SCHEMA_VALIDATION_FAILED', '/States/A', 'One of these fields is required: [Next, End]'],
  ['End false without Next', def({ A: { Type: 'Pass', End: false } }), 'SCHEMA_VALIDATION_FAILED', '/States/A', "The value for the field 'End' must be true"],
  ['both Next and End', one({ Type: 'Pass', Next: 'End', End: true }), 'SCHEMA_VALIDATION_FAILED', '/States/S', 'There should only be one of the following fields: [Next, End]'],
  ['End on Succeed', def({ A: { Type: 'Succeed', End: true } }), 'SCHEMA_VALIDATION_FAILED', '/States/A', "Field 'End' is not supported"],
  ['Next on Choice', one({ Type: 'Choice', Choices: [{ Variable: '$.x', IsNull: true, Next: 'End' }], Next: 'End' }), 'SCHEMA_VALIDATION_FAILED', '/States/S', "Field 'Next' is not supported"],
  ['Next on Fail', one({ Type: 'Fail', Next: 'End' }), 'SCHEMA_VALIDATION_FAILED', '/States/S', "Field 'Next' is not supported"],
  ['Next naming no state', def({ A: { Type: 'Pass', Next: 'Nowhere' } }), 'MISSING_TRANSITION_TARGET', '/States/A/Next', "Missing 'Next' target: Nowhere"],
  ['Choice rule Next naming no state', one({ Type: 'Choice', Choices: [{ Variable: '$.x', IsNull: true, Next: 'Nowhere' }], Default: 'End' }), 'MISSING_TRANSITION_TARGET', '/States/S/Choices[0]/Next', "Missing 'Next' target: Nowhere"],
  ['Default naming no state', one({ Type: 'Choice', Choices: [{ Variable: '$.x', IsNull: true, Next: 'End' }], Default: 'Nowhere' }), 'MISSING_TRANSITION_TARGET', '/States/S/Default', "Missing 'Default' target: Nowhere"],
  ['Catch Next naming no state', catches({ ErrorEquals: ['States.ALL'], Next: 'Nowhere' }), 'MISSING_TRANSITION_TARGET', '/States/S/Catch[0]/Next', "Missing 'Next' target: Nowhere"],
  ['unreachable state', def({ A: { Type: 'Succeed' }, B: { Type: 'Succeed' } }), 'MISSING_TRANSITION_TARGET', '/States/B', 'State "B" is not reachable.'],
  ['no terminal state', def({ A: { Type: 'Pass', Next: 'B' }, B: { Type: 'Pass', Next: 'A' } }), 'MISSING_END_STATE', '/States', 'Workflow has no terminal state'],
  ['Task without Resource', one({ Type: 'Task', Next: 'End' }), 'SCHEMA_VALIDATION_FAILED', '/States/S', 'These fields are required: [Resource]'],
  ['Resource not an ARN', task({ Resource: 'work' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Resource', 'The resource provided work is not recognized. The value is not a valid resource ARN, or the resource is not available in this region.'],
  ['activity ARN with a bad name', task({ Resource: `${ACT} x` }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Resource', 'The resource provided arn:aws:states:us-east-1:123456789012:activity:work x is not recognized. The value is not a valid resource ARN, or the resource is not available in this region.'],
  ['Lambda resource', task({ Resource: 'arn:aws:lambda:us-east-1:123456789012:function:f' }), 'INVALID_RESOURCE', '/States/S/Resource', "Resource 'arn:aws:lambda:us-east-1:123456789012:function:f' is not supported: ActorFlow runs activities and the service integrations it lists (arn:aws:states:::<service>:<action>)"],
  ['unknown service integration', task({ Resource: 'arn:aws:states:::sns:publish' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Resource', 'The resource provided arn:aws:states:::sns:publish is not recognized. The value is not a valid resource ARN, or the resource is not available in this region.'],
  ['a pattern the action lacks', task({ Resource: 'arn:aws:states:::http:invoke.waitForTaskToken' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Resource', 'The resource provided arn:aws:states:::http:invoke.waitForTaskToken is not recognized. The value is not a valid resource ARN, or the resource is not available in this region.'],
  ['nats:publish under the aws partition', task({ Resource: 'arn:aws:states:::nats:publish' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Resource', 'The resource provided arn:aws:states:::nats:publish is not recognized. The value is not a valid resource ARN, or the resource is not available in this region.'],
  ['TimeoutSeconds and TimeoutSecondsPath', task({ TimeoutSeconds: 10, TimeoutSecondsPath: '$.t' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/TimeoutSecondsPath', 'There should only be one of the following fields: [TimeoutSeconds, TimeoutSecondsPath]'],
  ['HeartbeatSeconds and HeartbeatSecondsPath', task({ HeartbeatSeconds: 10, HeartbeatSecondsPath: '$.h' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/HeartbeatSecondsPath', 'There should only be one of the following fields: [HeartbeatSeconds, HeartbeatSecondsPath]'],
  ['TimeoutSeconds zero', task({ TimeoutSeconds: 0 }), 'SCHEMA_VALIDATION_FAILED', '/States/S/TimeoutSeconds', 'Minimum value is 1'],
  ['HeartbeatSeconds not an integer', task({ HeartbeatSeconds: 1.5 }), 'SCHEMA_VALIDATION_FAILED', '/States/S/HeartbeatSeconds', "The value for the field 'HeartbeatSeconds' must be an INTEGER"],
  ['TimeoutSeconds a string', task({ TimeoutSeconds: '10' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/TimeoutSeconds', "The value for the field 'TimeoutSeconds' must be an INTEGER"],
  ['HeartbeatSeconds not below TimeoutSeconds', task({ TimeoutSeconds: 10, HeartbeatSeconds: 10 }), 'SCHEMA_VALIDATION_FAILED', '/States/S/HeartbeatSeconds', "The value for the field 'HeartbeatSeconds' must be smaller than the value for the field 'TimeoutSeconds'"],
  ['TimeoutSecondsPath not a path', task({ TimeoutSecondsPath: 'timeout' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/TimeoutSecondsPath', 'Value is not a Reference Path'],
  ['HeartbeatSecondsPath with a wildcard', task({ HeartbeatSecondsPath: '$.h[*]' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/HeartbeatSecondsPath', 'Value is not a Reference Path'],
  ['InputPath not a path', task({ InputPath: 'input' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/InputPath', 'Value must be a valid JSONPath.'],
  ['OutputPath unparsable', task({ OutputPath: '$.a[' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/OutputPath', 'Value must be a valid JSONPath.'],
  ['ResultPath with a wildcard', task({ ResultPath: '$.a[*]' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/ResultPath', 'Value is not a Reference Path'],
  ['ResultPath into the context object', task({ ResultPath: '$$.Execution' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/ResultPath', 'Value is not a Reference Path into the state input (the context object cannot be written)'],
  ['ItemsPath deep scan', map({ ItemsPath: '$..items', ItemProcessor: processor }), 'SCHEMA_VALIDATION_FAILED', '/States/S/ItemsPath', 'Value is not a Reference Path'],
  ['Catch ResultPath not a reference path', catches({ ErrorEquals: ['States.ALL'], Next: 'End', ResultPath: 'err' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Catch[0]/ResultPath', 'Value is not a Reference Path'],
  ['Parameters .$ value not a string', task({ Parameters: { 'a.$': 5 } }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Parameters/a.$', "The value for the field 'a.$' must be a STRING"],
  ['Parameters .$ value not a path', task({ Parameters: { 'a.$': 'input.a' } }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Parameters/a.$', "The value for the field 'a.$' must be a valid JSONPath or a valid intrinsic function call"],
  ['Parameters .$ nested in an array', task({ Parameters: { list: [{ 'b.$': '$.[' }] } }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Parameters/list[0]/b.$', "The value for the field 'b.$' must be a valid JSONPath or a valid intrinsic function call"],
  ['Parameters .$ unknown intrinsic', task({ Parameters: { 'a.$': 'States.Nope($.x)' } }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Parameters/a.$', "The value for the field 'a.$' must be a valid intrinsic function call (a known States.* function with the right number of valid arguments)"],
  ['Parameters .$ unclosed intrinsic', task({ Parameters: { 'a.$': "States.Format('{}', $.x" } }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Parameters/a.$', "The value for the field 'a.$' must be a valid intrinsic function call (a known States.* function with the right number of valid arguments)"],
  ['ResultSelector nested .$ bad', task({ ResultSelector: { out: { 'v.$': 'v' } } }), 'SCHEMA_VALIDATION_FAILED', '/States/S/ResultSelector/out/v.$', "The value for the field 'v.$' must be a valid JSONPath or a valid intrinsic function call"],
  ['ItemSelector .$ bad', map({ ItemProcessor: processor, ItemSelector: { 'v.$': 7 } }), 'SCHEMA_VALIDATION_FAILED', '/States/S/ItemSelector/v.$', "The value for the field 'v.$' must be a STRING"],
  ['Parameters not an object', task({ Parameters: 'x' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Parameters', "The value for the field 'Parameters' must be an OBJECT"],
  ['Choice without Choices', one({ Type: 'Choice', Default: 'End' }), 'SCHEMA_VALIDATION_FAILED', '/States/S', 'These fields are required: [Choices]'],
  ['Choice with empty Choices', one({ Type: 'Choice', Choices: [], Default: 'End' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices', 'Value cannot be empty'],
  ['top-level rule without Next', one({ Type: 'Choice', Choices: [{ Variable: '$.x', IsNull: true }], Default: 'End' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]', 'These fields are required: [Next]'],
  ['Next inside And', choice({ And: [{ Variable: '$.x', IsNull: true, Next: 'End' }] }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]/And[0]', "Field 'Next' is not supported"],
  ['Next inside Not', choice({ Not: { Variable: '$.x', IsNull: true, Next: 'End' } }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]/Not', "Field 'Next' is not supported"],
  ['rule with Variable and And', choice({ Variable: '$.x', IsNull: true, And: [{ Variable: '$.y', IsNull: true }] }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]', 'The object must have only one of the following fields: [And, Or, Not, Variable]'],
  ['comparison without operator', cmp({}), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]', 'A comparison needs exactly one operator (found none)'],
  ['comparison with two operators', cmp({ StringEquals: 'a', StringGreaterThan: 'b' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]', 'A comparison needs exactly one operator (found StringEquals, StringGreaterThan)'],
  ['unknown operator', cmp({ StringContains: 'a' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]', "Field 'StringContains' is not supported"],
  ['StringMatchesPath (no such twin)', cmp({ StringMatchesPath: '$.y' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]', "Field 'StringMatchesPath' is not supported"],
  ['StringEquals with a number', cmp({ StringEquals: 1 }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]/StringEquals', "The value for the field 'StringEquals' must be a STRING"],
  ['NumericEquals with a string', cmp({ NumericEquals: '1' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]/NumericEquals', "The value for the field 'NumericEquals' must be a NUMBER"],
  ['BooleanEquals with a string', cmp({ BooleanEquals: 'true' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]/BooleanEquals', "The value for the field 'BooleanEquals' must be a BOOLEAN"],
  ['TimestampEquals not RFC 3339', cmp({ TimestampEquals: '2024-01-01 10:00:00' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]/TimestampEquals', 'String does not match RFC3339 timestamp'],
  ['TimestampLessThan with an impossible date', cmp({ TimestampLessThan: '2023-02-30T00:00:00Z' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]/TimestampLessThan', 'String does not match RFC3339 timestamp'],
  ['IsPresent with a string', cmp({ IsPresent: 'yes' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]/IsPresent', "The value for the field 'IsPresent' must be a BOOLEAN"],
  ['NumericEqualsPath not a path', cmp({ NumericEqualsPath: 'y' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]/NumericEqualsPath', 'Value must be a valid JSONPath.'],
  ['Variable not a path', choice({ Variable: 'x', IsNull: true }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]/Variable', 'Value must be a valid JSONPath.'],
  ['empty Or', choice({ Or: [] }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Choices[0]/Or', 'Value cannot be empty'],
  ['Wait without a duration', wait({}), 'SCHEMA_VALIDATION_FAILED', '/States/S', 'Exactly one of these fields is required: [Seconds, Timestamp, SecondsPath, TimestampPath]'],
  ['Wait with two durations', wait({ Seconds: 1, TimestampPath: '$.t' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/TimestampPath', 'There should only be one of the following fields: [Seconds, Timestamp, SecondsPath, TimestampPath]'],
  ['Wait with negative Seconds', wait({ Seconds: -1 }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Seconds', 'Minimum value is 0'],
  ['Wait with a bad Timestamp', wait({ Timestamp: '2024-13-01T00:00:00Z' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Timestamp', 'String does not match RFC3339 timestamp'],
  ['Wait with a lowercase Timestamp', wait({ Timestamp: '2024-01-01t00:00:00z' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Timestamp', 'String does not match RFC3339 timestamp'],
  ['Wait SecondsPath not a path', wait({ SecondsPath: 'secs' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/SecondsPath', 'Value is not a Reference Path'],
  ['Fail with Error and ErrorPath', fail({ Error: 'E', ErrorPath: '$.e' }), 'SCHEMA_VALIDATION_FAILED', '/States/F/ErrorPath', 'There should only be one of the following fields: [Error, ErrorPath]'],
  ['Fail with Cause and CausePath', fail({ Cause: 'C', CausePath: '$.c' }), 'SCHEMA_VALIDATION_FAILED', '/States/F/CausePath', 'There should only be one of the following fields: [Cause, CausePath]'],
  ['Fail CausePath not a path', fail({ CausePath: 'cause' }), 'SCHEMA_VALIDATION_FAILED', '/States/F/CausePath', 'Value is not a Reference Path'],
  ['Fail ErrorPath with a wildcard', fail({ ErrorPath: '$.errors[*]' }), 'SCHEMA_VALIDATION_FAILED', '/States/F/ErrorPath', 'Value is not a Reference Path'],
  ['Fail ErrorPath a bad intrinsic', fail({ ErrorPath: 'States.Format(' }), 'SCHEMA_VALIDATION_FAILED', '/States/F/ErrorPath', "The value for the field 'ErrorPath' must be a valid intrinsic function call (a known States.* function with the right number of valid arguments)"],
  ['Retry States.ALL not alone', retry({ ErrorEquals: ['States.ALL', 'E'] }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Retry[0]/ErrorEquals', 'States.ALL must appear alone and at end of list'],
  ['Retry States.ALL not last', retry({ ErrorEquals: ['States.ALL'] }, { ErrorEquals: ['E'] }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Retry[0]/ErrorEquals', 'States.ALL must appear alone and at end of list'],
  ['Catch States.ALL not last', catches({ ErrorEquals: ['States.ALL'], Next: 'End' }, { ErrorEquals: ['E'], Next: 'End' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Catch[0]/ErrorEquals', 'States.ALL must appear alone and at end of list'],
  ['empty ErrorEquals', retry({ ErrorEquals: [] }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Retry[0]/ErrorEquals', 'Value cannot be empty'],
  ['Retry without ErrorEquals', retry({ MaxAttempts: 1 }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Retry[0]', 'These fields are required: [ErrorEquals]'],
  ['custom error in the States. namespace', retry({ ErrorEquals: ['States.MyError'] }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Retry[0]/ErrorEquals[0]', "'States.MyError' is not a predefined error name; custom error names must not start with 'States.'"],
  ['MaxAttempts negative', retry({ ErrorEquals: ['E'], MaxAttempts: -1 }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Retry[0]/MaxAttempts', 'Minimum value is 0'],
  ['IntervalSeconds zero', retry({ ErrorEquals: ['E'], IntervalSeconds: 0 }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Retry[0]/IntervalSeconds', 'Minimum value is 1'],
  ['BackoffRate below 1', retry({ ErrorEquals: ['E'], BackoffRate: 0.5 }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Retry[0]/BackoffRate', 'Minimum value is 1.0'],
  ['JitterStrategy unknown', retry({ ErrorEquals: ['E'], JitterStrategy: 'PARTIAL' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Retry[0]/JitterStrategy', 'Value should be one of the following: [NONE, FULL]'],
  ['unknown Retry field', retry({ ErrorEquals: ['E'], Delay: 3 }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Retry[0]', "Field 'Delay' is not supported"],
  ['Catch without Next', catches({ ErrorEquals: ['E'] }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Catch[0]', 'These fields are required: [Next]'],
  ['Parallel without Branches', one({ Type: 'Parallel', Next: 'End' }), 'SCHEMA_VALIDATION_FAILED', '/States/S', 'These fields are required: [Branches]'],
  ['Parallel with empty Branches', parallel(), 'SCHEMA_VALIDATION_FAILED', '/States/S/Branches', 'Value cannot be empty'],
  ['invalid branch state', parallel(branch({ X: { Type: 'Pass', End: true, Resource: ACT } })), 'SCHEMA_VALIDATION_FAILED', '/States/S/Branches[0]/States/X', "Field 'Resource' is not supported"],
  ['branch without StartAt', parallel({ States: { X: { Type: 'Succeed' } } }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Branches[0]', 'These fields are required: [StartAt]'],
  ['branch state Next leaving the branch', parallel(branch({ X: { Type: 'Pass', Next: 'End' } })), 'MISSING_TRANSITION_TARGET', '/States/S/Branches[0]/States/X/Next', "Missing 'Next' target: End"],
  ['unreachable state in a branch', parallel(branch({ X: { Type: 'Succeed' }, Y: { Type: 'Succeed' } })), 'MISSING_TRANSITION_TARGET', '/States/S/Branches[0]/States/Y', 'State "Y" is not reachable.'],
  ['same state name in two branches', parallel(branch({ X: { Type: 'Succeed' } }), branch({ X: { Type: 'Succeed' } })), 'DUPLICATE_STATE_NAME', '/States/S/Branches[1]/States/X', 'Duplicate State name: X'],
  ['Map without ItemProcessor', map({}), 'SCHEMA_VALIDATION_FAILED', '/States/S', 'These fields are required: [ItemProcessor]'],
  ['Map with ItemProcessor and Iterator', map({ ItemProcessor: processor, Iterator: processor }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Iterator', 'There should only be one of the following fields: [ItemProcessor, Iterator]'],
  ['Map with ItemSelector and Parameters', map({ ItemProcessor: processor, ItemSelector: {}, Parameters: {} }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Parameters', 'There should only be one of the following fields: [ItemSelector, Parameters]'],
  ['MaxConcurrency negative', map({ ItemProcessor: processor, MaxConcurrency: -1 }), 'SCHEMA_VALIDATION_FAILED', '/States/S/MaxConcurrency', 'Minimum value is 0'],
  ['MaxConcurrency and MaxConcurrencyPath', map({ ItemProcessor: processor, MaxConcurrency: 2, MaxConcurrencyPath: '$.n' }), 'SCHEMA_VALIDATION_FAILED', '/States/S/MaxConcurrencyPath', 'There should only be one of the following fields: [MaxConcurrency, MaxConcurrencyPath]'],
  ['distributed Map', map({ ItemProcessor: { ...processor, ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' } } }), 'SCHEMA_VALIDATION_FAILED', '/States/S/ItemProcessor/ProcessorConfig/Mode', 'Distributed Map is not supported: ActorFlow runs Map states in INLINE mode only'],
  ['ItemReader (distributed only)', map({ ItemProcessor: processor, ItemReader: {} }), 'SCHEMA_VALIDATION_FAILED', '/States/S', "Field 'ItemReader' is not supported"],
  ['Map iteration state leaving the iteration', map({ ItemProcessor: branch({ Item: { Type: 'Pass', Next: 'S' } }) }), 'MISSING_TRANSITION_TARGET', '/States/S/ItemProcessor/States/Item/Next', "Missing 'Next' target: S"],
  ['top-level TimeoutSeconds zero', def({ A: { Type: 'Succeed' } }, { TimeoutSeconds: 0 }), 'SCHEMA_VALIDATION_FAILED', '/TimeoutSeconds', 'Minimum value is 1'],
  ['top-level TimeoutSeconds a string', def({ A: { Type: 'Succeed' } }, { TimeoutSeconds: '60' }), 'SCHEMA_VALIDATION_FAILED', '/TimeoutSeconds', "The value for the field 'TimeoutSeconds' must be an INTEGER"],
  ['Version not 1.0', def({ A: { Type: 'Succeed' } }, { Version: '2.0' }), 'SCHEMA_VALIDATION_FAILED', '/Version', 'Value should be one of the following: [1.0]'],
  ['QueryLanguage outside the enum', def({ A: { Type: 'Succeed' } }, { QueryLanguage: 'jsonata' }), 'SCHEMA_VALIDATION_FAILED', '/QueryLanguage', 'Value should be one of the following: [JSONPath, JSONata]'],
  ['two states with one name (duplicate JSON key)', '{"StartAt":"A","States":{"A":{"Type":"Pass","End":true},"A":{"Type":"Succeed"}}}', 'DUPLICATE_STATE_NAME', '/States/A', 'Duplicate State name: A'],
  ['a duplicate field in a state', '{"StartAt":"A","States":{"A":{"Type":"Pass","End":true,"Comment":"x","Comment":"y"}}}', 'SCHEMA_VALIDATION_FAILED', '/States/A', "Duplicate field 'Comment'"],
  ['a duplicate escaped key in a branch', `{"StartAt":"P","States":{"P":{"Type":"Parallel","End":true,"Branches":[{"StartAt":"a\\"b","States":{"a\\"b":{"Type":"Succeed"},"a\\u0022b":{"Type":"Succeed"}}}]}}}`, 'DUPLICATE_STATE_NAME', '/States/P/Branches[0]/States/a"b', 'Duplicate State name: a"b'],
  ['Choice rules nested beyond the stack', choice({ Variable: '$.x', IsNull: true }).replace('{"Next":"End","Variable":"$.x","IsNull":true}', `{"Next":"End","Not":${'{"Not":'.repeat(60_000)}{"Variable":"$.x","IsNull":true}${'}'.repeat(60_000)}}`), 'TOO_DEEPLY_NESTED', '/', 'The states are too deeply nested.'],
  ['a JSONPath state in a JSONata machine', one({ Type: 'Pass', End: true, QueryLanguage: 'JSONPath' }, { QueryLanguage: 'JSONata' }), 'SCHEMA_VALIDATION_FAILED', '/States/S', "'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine"],
  ['Comment not a string', one({ Type: 'Pass', End: true, Comment: 5 }), 'SCHEMA_VALIDATION_FAILED', '/States/S/Comment', "The value for the field 'Comment' must be a STRING"],
];

describe('parseDefinition rejects bad definitions with the AWS code and path', () => {
  it.each(BAD)('%s', (_what, text, code, path, message) => {
    const problems = problemsOf(text);
    const hit = problems.find((p) => p.code === code && p.path === path && p.message === message);
    expect(hit, JSON.stringify(problems, null, 1)).toBeDefined();
  });

  it('has a case for at least 30 kinds of problem', () => {
    expect(BAD.length).toBeGreaterThanOrEqual(30);
  });

  it('words the error as AWS does', () => {
    let error: unknown;
    try {
      parseDefinition(def({ A: { Type: 'Pass', Next: 'Nowhere' } }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidDefinitionError);
    expect((error as Error).name).toBe('InvalidDefinitionError');
    expect((error as Error).message).toBe("Invalid State Machine Definition: 'MISSING_TRANSITION_TARGET: Missing 'Next' target: Nowhere at /States/A/Next'");
  });

  it.each([
    ['a Wait Timestamp that is not RFC 3339', def({ WaitUntil: { Type: 'Wait', Timestamp: '2024-01-01 10:00:00', End: true } }),
      "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: String does not match RFC3339 timestamp at /States/WaitUntil/Timestamp'"],
    ['an empty object (AWS lists States before StartAt)', '{}', "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: These fields are required: [States, StartAt] at /'"],
    ['a blank definition (no location)', ' ', "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: Definition must be a valid JSON object'"],
    ['a missing target and an unreachable state', def({ pass1: { Type: 'Pass', Next: 'pass3' }, pass2: { Type: 'Pass', End: true } }),
      "Invalid State Machine Definition: 'MISSING_TRANSITION_TARGET: Missing 'Next' target: pass3 at /States/pass1/Next, MISSING_TRANSITION_TARGET: State \"pass2\" is not reachable. at /States/pass2'"],
    ['an OutputPath that is not a path', def({ Pass: { Type: 'Pass', OutputPath: 'Test', End: true } }),
      "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: Value must be a valid JSONPath. at /States/Pass/OutputPath'"],
  ])('words %s exactly as AWS does', (_what, text, message) => {
    expect(() => parseDefinition(text)).toThrow(message);
    try { parseDefinition(text); } catch (e) { expect((e as Error).message).toBe(message); }
  });

  it('lists every problem, joined with ", "', () => {
    const text = def({ A: { Type: 'Task', Resource: 'nope', Next: 'B', Result: 1 }, B: { Type: 'Wait', End: true } });
    const problems = problemsOf(text);
    expect(problems.map((p) => `${p.code} ${p.path}`)).toEqual([
      'SCHEMA_VALIDATION_FAILED /States/A',
      'SCHEMA_VALIDATION_FAILED /States/A/Resource',
      'SCHEMA_VALIDATION_FAILED /States/B',
    ]);
    try {
      parseDefinition(text);
    } catch (e) {
      expect((e as Error).message).toBe("Invalid State Machine Definition: '"
        + "SCHEMA_VALIDATION_FAILED: Field 'Result' is not supported at /States/A, "
        + 'SCHEMA_VALIDATION_FAILED: The resource provided nope is not recognized. The value is not a valid resource ARN, '
        + 'or the resource is not available in this region. at /States/A/Resource, '
        + 'SCHEMA_VALIDATION_FAILED: Exactly one of these fields is required: [Seconds, Timestamp, SecondsPath, TimestampPath] at /States/B\'');
    }
  });

  it('rejects a definition over 1 MiB before parsing it', () => {
    const text = def({ A: { Type: 'Pass', Result: 'x'.repeat(MAX_DEFINITION_LENGTH), End: true } });
    const [problem] = problemsOf(text);
    expect(problem).toMatchObject({ code: 'SCHEMA_VALIDATION_FAILED', path: '/' });
    expect(problem!.message).toContain('the limit is 1048576');
  });
});

const VALID: [string, unknown][] = [
  ['the smallest machine', { StartAt: 'A', States: { A: { Type: 'Pass', End: true } } }],
  ['top-level options', {
    Comment: 'all the top-level members', Version: '1.0', TimeoutSeconds: 3600, QueryLanguage: 'JSONPath',
    StartAt: 'Done', States: { Done: { Type: 'Succeed', Comment: 'done', InputPath: '$.a', OutputPath: null } },
  }],
  ...([
    'arn:aws:states:::http:invoke', 'arn:aws:states:::lambda:invoke', 'arn:aws:states:::lambda:invoke.waitForTaskToken',
    'arn:aws:states:::states:startExecution', 'arn:aws:states:::states:startExecution.sync', 'arn:aws:states:::states:startExecution.sync:2',
    'arn:aws:states:::states:startExecution.waitForTaskToken', 'arn:actorflow:states:::nats:publish', 'arn:actorflow:states:::nats:publish.waitForTaskToken',
  ].map((Resource): [string, unknown] => [`a service Task on ${Resource}`, {
    StartAt: 'T', States: { T: { Type: 'Task', Resource, Parameters: { 'Token.$': '$$.Task.Token' }, TimeoutSeconds: 60, HeartbeatSeconds: 10, End: true } },
  }])),
  ['an activity Task with every member', {
    StartAt: 'Work',
    States: {
      Work: {
        Type: 'Task', Resource: ACT, Comment: 'c', InputPath: '$.order', OutputPath: '$',
        Parameters: {
          'id.$': '$.id', 'exec.$': '$$.Execution.Id', static: { n: 1, list: [{ 'x.$': '$.x' }] },
          'msg.$': "States.Format('order {}', $.id)", 'arr.$': 'States.Array($.a, $.b)',
        },
        ResultSelector: { 'out.$': '$.result' }, ResultPath: '$.work',
        TimeoutSeconds: 300, HeartbeatSeconds: 60,
        Retry: [
          { ErrorEquals: ['States.Timeout', 'Custom.Error'], IntervalSeconds: 2, MaxAttempts: 5, BackoffRate: 1.5, MaxDelaySeconds: 30, JitterStrategy: 'FULL' },
          { ErrorEquals: ['States.ALL'], MaxAttempts: 0 },
        ],
        Catch: [
          { ErrorEquals: ['States.HeartbeatTimeout'], Next: 'Recover', ResultPath: '$.error' },
          { ErrorEquals: ['States.ALL'], Next: 'Failed', ResultPath: null },
        ],
        Next: 'Done',
      },
      Recover: { Type: 'Task', Resource: ACT, TimeoutSecondsPath: '$.timeout', HeartbeatSecondsPath: '$.hb', End: true },
      Failed: { Type: 'Fail', Error: 'WorkFailed', Cause: 'the activity failed' },
      Done: { Type: 'Succeed' },
    },
  }],
  ['a Choice with every operator family, And/Or/Not and a loop', {
    StartAt: 'Check',
    States: {
      Check: {
        Type: 'Choice',
        Choices: [
          { Variable: '$.s', StringEquals: 'a', Next: 'Again' },
          { Variable: '$.s', StringMatches: 'log-*.txt', Next: 'Yes' },
          { Variable: '$.n', NumericGreaterThanEquals: 2.5, Next: 'Yes' },
          { Variable: '$.n', NumericLessThanPath: '$.limit', Next: 'Yes' },
          { Variable: '$.b', BooleanEquals: false, Next: 'No' },
          { Variable: '$.t', TimestampLessThan: '2024-02-29T12:00:00.123+01:00', Next: 'Yes' },
          { Variable: '$$.Execution.StartTime', TimestampGreaterThanPath: '$.since', Next: 'Yes' },
          { And: [{ Variable: '$.a', IsPresent: true }, { Or: [{ Variable: '$.a', IsNull: false }, { Not: { Variable: '$.a', IsString: true } }] }], Next: 'No', Comment: 'nested' },
        ],
        Default: 'No',
      },
      Again: { Type: 'Pass', Result: { s: 'b' }, ResultPath: '$', Next: 'Check' },
      Yes: { Type: 'Succeed' },
      No: { Type: 'Fail', ErrorPath: '$.error', CausePath: "States.Format('bad {}', $.s)" },
    },
  }],
  ['Wait in all four forms', {
    StartAt: 'W1',
    States: {
      W1: { Type: 'Wait', Seconds: 0, Next: 'W2' },
      W2: { Type: 'Wait', Timestamp: '2030-01-01T00:00:00Z', Next: 'W3' },
      W3: { Type: 'Wait', SecondsPath: '$.delay', Next: 'W4' },
      W4: { Type: 'Wait', TimestampPath: '$.until', End: true },
    },
  }],
  ['a Pass with a static Result that looks dynamic', {
    StartAt: 'P',
    States: { P: { Type: 'Pass', Result: { 'not.$': 'left alone', n: [1, 2] }, ResultPath: '$.r', Parameters: { 'in.$': '$' }, End: true } },
  }],
  ['a state reachable only through Catch', {
    StartAt: 'T',
    States: {
      T: { Type: 'Task', Resource: ACT, Catch: [{ ErrorEquals: ['States.TaskFailed'], Next: 'Handle' }], End: true },
      Handle: { Type: 'Fail', Error: 'Handled' },
    },
  }],
  ['a Parallel of two branches with Retry and Catch', {
    StartAt: 'Both',
    States: {
      Both: {
        Type: 'Parallel', Parameters: { 'x.$': '$.x' }, ResultSelector: { 'first.$': '$[0]' }, ResultPath: '$.both',
        Branches: [
          { StartAt: 'L1', States: { L1: { Type: 'Task', Resource: ACT, Next: 'L2' }, L2: { Type: 'Pass', End: true } } },
          { StartAt: 'R1', Comment: 'right', States: { R1: { Type: 'Wait', Seconds: 1, End: true } } },
        ],
        Retry: [{ ErrorEquals: ['States.BranchFailed'] }],
        Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Oops' }],
        Next: 'Done',
      },
      Oops: { Type: 'Fail' },
      Done: { Type: 'Succeed' },
    },
  }],
  ['a Map with ItemProcessor, ItemSelector and MaxConcurrency', {
    StartAt: 'Each',
    States: {
      Each: {
        Type: 'Map', ItemsPath: '$.items', MaxConcurrency: 0,
        ItemSelector: { 'item.$': '$$.Map.Item.Value', 'index.$': '$$.Map.Item.Index' },
        ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, StartAt: 'Do', States: { Do: { Type: 'Task', Resource: ACT, End: true } } },
        ResultPath: '$.results', End: true,
      },
    },
  }],
  ['names and strings holding JSON punctuation', {
    StartAt: 'a "quoted", {braced} [state]',
    Comment: 'commas, colons: "quotes" \\ backslashes } ] and \u00e9',
    States: {
      'a "quoted", {braced} [state]': { Type: 'Pass', Result: { 'k,"1"': '{', 'k:2': [']', '}'] }, Next: 'b\\' },
      'b\\': { Type: 'Succeed' },
    },
  }],
  ['a Map with MaxConcurrencyPath', {
    StartAt: 'Each',
    States: { Each: { Type: 'Map', MaxConcurrencyPath: '$.n', ItemProcessor: { StartAt: 'Do', States: { Do: { Type: 'Succeed' } } }, End: true } },
  }],
];

const LEGACY: [string, unknown, unknown][] = [
  ['a legacy Iterator carrying a ProcessorConfig (AWS accepts it)', {
    StartAt: 'Each',
    States: { Each: { Type: 'Map', Iterator: { ProcessorConfig: { Mode: 'INLINE' }, StartAt: 'Do', States: { Do: { Type: 'Pass', End: true } } }, End: true } },
  }, {
    StartAt: 'Each',
    States: { Each: { Type: 'Map', ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, StartAt: 'Do', States: { Do: { Type: 'Pass', End: true } } }, End: true } },
  }],
  ['a legacy Map (Iterator, Parameters) becomes ItemProcessor, ItemSelector', {
    StartAt: 'Each',
    States: { Each: { Type: 'Map', Parameters: { 'v.$': '$$.Map.Item.Value' }, Iterator: { StartAt: 'Do', States: { Do: { Type: 'Pass', End: true } } }, End: true } },
  }, {
    StartAt: 'Each',
    States: { Each: { Type: 'Map', ItemSelector: { 'v.$': '$$.Map.Item.Value' }, ItemProcessor: { StartAt: 'Do', States: { Do: { Type: 'Pass', End: true } } }, End: true } },
  }],
  ['a legacy Map inside a Parallel inside a Map is normalised at every depth', {
    StartAt: 'Outer',
    States: {
      Outer: {
        Type: 'Map', End: true,
        ItemProcessor: {
          StartAt: 'Par',
          States: {
            Par: {
              Type: 'Parallel', End: true,
              Branches: [{ StartAt: 'Inner', States: { Inner: { Type: 'Map', Iterator: { StartAt: 'Leaf', States: { Leaf: { Type: 'Succeed' } } }, End: true } } }],
            },
          },
        },
      },
    },
  }, {
    StartAt: 'Outer',
    States: {
      Outer: {
        Type: 'Map', End: true,
        ItemProcessor: {
          StartAt: 'Par',
          States: {
            Par: {
              Type: 'Parallel', End: true,
              Branches: [{ StartAt: 'Inner', States: { Inner: { Type: 'Map', ItemProcessor: { StartAt: 'Leaf', States: { Leaf: { Type: 'Succeed' } } }, End: true } } }],
            },
          },
        },
      },
    },
  }],
];

describe('parseDefinition accepts valid definitions', () => {
  it.each(VALID)('%s, unchanged', (_what, definition) => {
    expect(parseDefinition(JSON.stringify(definition))).toEqual(definition);
  });

  it.each(LEGACY)('%s', (_what, definition, normalised) => {
    expect(parseDefinition(JSON.stringify(definition))).toEqual(normalised);
  });

  it('covers every state type', () => {
    const types = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        const o = v as Record<string, unknown>;
        if (typeof o.Type === 'string') types.add(o.Type);
        Object.values(o).forEach(walk);
      }
    };
    walk(VALID.map(([, d]) => d));
    expect([...types].sort()).toEqual(['Choice', 'Fail', 'Map', 'Parallel', 'Pass', 'Succeed', 'Task', 'Wait']);
  });
});
