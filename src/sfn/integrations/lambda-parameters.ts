/**
 * The Lambda task's Parameters: the members of Lambda's Invoke request (FunctionName, Payload,
 * InvocationType, LogType, ClientContext, Qualifier), checked against the Lambda service model.
 */
export interface LambdaInvokeRequest {
  readonly functionName: string;
  readonly payload: unknown;
  readonly invocationType: 'RequestResponse' | 'Event' | 'DryRun';
  readonly logType: 'None' | 'Tail' | undefined;
  readonly clientContext: string | undefined;
  readonly qualifier: string | undefined;
}

const FIELDS = ['FunctionName', 'Payload', 'InvocationType', 'LogType', 'ClientContext', 'Qualifier'];
/** Lambda's FunctionName: a name, a partial ARN (`123456789012:function:f`) or a full ARN, with an optional qualifier. */
const FUNCTION_NAME = /^(arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:)?(\d{12}:)?(function:)?([a-zA-Z0-9-_.]+)(:(\$LATEST|[a-zA-Z0-9-_]+))?$/;
const QUALIFIER = /^[a-zA-Z0-9$_-]+$/;

export class LambdaParameterProblem extends Error {}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Lambda's own wording for a member that breaks the model. */
const invalid = (member: string, value: unknown, constraint: string): never => {
  throw new LambdaParameterProblem(`1 validation error detected: Value '${String(value).slice(0, 200)}' at '${member}' failed to satisfy constraint: ${constraint}`);
};

function checkFunctionName(v: unknown): string {
  if (typeof v !== 'string') throw new LambdaParameterProblem("The field 'FunctionName' is required and must be a string");
  if (v.length < 1 || v.length > 170) invalid('functionName', v, 'Member must have length less than or equal to 170');
  if (!FUNCTION_NAME.test(v)) invalid('functionName', v, `Member must satisfy regular expression pattern: ${FUNCTION_NAME.source}`);
  return v;
}

/** Reads one invocation's effective parameters; throws LambdaParameterProblem. */
export function readLambdaParameters(p: unknown): LambdaInvokeRequest {
  if (!isObject(p)) throw new LambdaParameterProblem('The Lambda task parameters must be a JSON object');
  const extra = Object.keys(p).find((k) => !FIELDS.includes(k));
  if (extra !== undefined) throw new LambdaParameterProblem(`The field '${extra}' is not supported by Step Functions`);
  const invocationType = p.InvocationType ?? 'RequestResponse';
  if (invocationType !== 'RequestResponse' && invocationType !== 'Event' && invocationType !== 'DryRun') {
    invalid('invocationType', invocationType, 'Member must satisfy enum value set: [Event, RequestResponse, DryRun]');
  }
  const logType = p.LogType;
  if (logType !== undefined && logType !== 'None' && logType !== 'Tail') invalid('logType', logType, 'Member must satisfy enum value set: [None, Tail]');
  const clientContext = p.ClientContext;
  if (clientContext !== undefined && (typeof clientContext !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(clientContext) || Buffer.from(clientContext, 'base64').length > 3583)) {
    invalid('clientContext', clientContext, 'Member must be base64-encoded JSON of at most 3583 bytes');
  }
  const qualifier = p.Qualifier;
  if (qualifier !== undefined && (typeof qualifier !== 'string' || qualifier.length > 128 || !QUALIFIER.test(qualifier))) {
    invalid('qualifier', qualifier, 'Member must satisfy regular expression pattern: (|[a-zA-Z0-9$_-]+)');
  }
  return {
    functionName: checkFunctionName(p.FunctionName), payload: p.Payload,
    invocationType: invocationType as LambdaInvokeRequest['invocationType'], logType: logType as LambdaInvokeRequest['logType'],
    clientContext: clientContext as string | undefined, qualifier: qualifier as string | undefined,
  };
}

/** Checks what a definition writes literally; the first problem, or undefined. */
export function checkLambdaParameters(p: unknown): string | undefined {
  if (!isObject(p)) return undefined;
  const base = (k: string) => (k.endsWith('.$') ? k.slice(0, -2) : k);
  const extra = Object.keys(p).find((k) => !FIELDS.includes(base(k)));
  if (extra !== undefined) return `The field '${base(extra)}' is not supported by Step Functions`;
  if (!('FunctionName' in p) && !('FunctionName.$' in p)) return "The field 'FunctionName' is required but was missing";
  const literal = Object.fromEntries(Object.entries(p).filter(([k, v]) => !k.endsWith('.$') && !(typeof v === 'string' && /^\{%[\s\S]*%\}$/.test(v))));
  try {
    if ('FunctionName' in literal) checkFunctionName(literal.FunctionName);
    readLambdaParameters({ ...literal, FunctionName: 'f' });
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}
