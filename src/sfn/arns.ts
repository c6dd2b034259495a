import { Fault } from '../protocol/faults.js';
import { unicodeProblem } from '../protocol/validate.js';

/** Where this node's Step Functions resources live (ServiceContext satisfies it). */
export interface ArnContext { region: string; account: string }

export type SfnArnKind = 'activity' | 'stateMachine' | 'execution';

/** What an ARN names; region and account are whatever the caller wrote (another one simply does not exist). */
export interface ParsedArn { name: string; stateMachineName?: string; region: string; account: string }

const MAX_NAME = 80;
const MAX_ARN = 256;
// Whitespace, the punctuation Step Functions forbids, control characters, U+FFFE/U+FFFF and lone surrogates.
const FORBIDDEN = /[\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// arn:<partition>:states:<region>:<12-digit account>:<kind>:<rest>
const ARN = /^arn:aws(?:-[a-z]+)*:states:([a-z0-9-]+):(\d{12}):(activity|stateMachine|execution|express):(.+)$/;

const base = (ctx: ArnContext) => `arn:aws:states:${ctx.region}:${ctx.account}`;

/** `arn:aws:states:<region>:<account>:activity:<name>` */
export function activityArn(ctx: ArnContext, name: string): string {
  return `${base(ctx)}:activity:${name}`;
}

/** `arn:aws:states:<region>:<account>:stateMachine:<name>` */
export function stateMachineArn(ctx: ArnContext, name: string): string {
  return `${base(ctx)}:stateMachine:${name}`;
}

/** `arn:aws:states:<region>:<account>:execution:<stateMachineName>:<executionName>` */
export function executionArn(ctx: ArnContext, stateMachineName: string, executionName: string): string {
  return `${base(ctx)}:execution:${stateMachineName}:${executionName}`;
}

/** `arn:aws:states:<region>:<account>:express:<stateMachineName>:<executionName>:<uuid>`: an EXPRESS execution (AWS's form). */
export function expressExecutionArn(ctx: ArnContext, stateMachineName: string, executionName: string, id: string): string {
  return `${base(ctx)}:express:${stateMachineName}:${executionName}:${id}`;
}

/** Why a string is not a Step Functions resource name, or undefined when it is one. */
export function sfnNameProblem(name: string): string | undefined {
  if (name.length < 1 || name.length > MAX_NAME) return `must have length between 1 and ${MAX_NAME}`;
  if (FORBIDDEN.test(name)) return 'contains a character that is not allowed';
  return undefined;
}

/** A required request member holding a string (missing → ValidationException, not a string → SerializationException). */
function requiredString(value: unknown, member: string, max: number): string {
  if (value === undefined || value === null) {
    throw new Fault('ValidationException', `1 validation error detected: Value null at '${member}' failed to satisfy constraint: Member must not be null`);
  }
  if (typeof value !== 'string') throw new Fault('SerializationException', `Expected string at '${member}'`);
  const bad = unicodeProblem(value);
  if (bad) {
    throw new Fault('ValidationException',
      `1 validation error detected: Value '${value.slice(0, 64).replace(/\p{Cs}/gu, '\uFFFD')}' at '${member}' failed to satisfy constraint: ${bad}`);
  }
  if (value.length > max) {
    throw new Fault('ValidationException',
      `1 validation error detected: Value '${value.slice(0, 64)}' at '${member}' failed to satisfy constraint: Member must have length less than or equal to ${max}`);
  }
  return value;
}

/** A resource name of 1–80 allowed characters, else InvalidName (missing → ValidationException). */
export function validateSfnName(name: unknown, member: string): string {
  const s = requiredString(name, member, Number.MAX_SAFE_INTEGER);
  if (sfnNameProblem(s)) throw new Fault('InvalidName', `Invalid Name: '${s.slice(0, 256)}'`);
  return s;
}

/** `…:express:<stateMachine>:<execution>:<uuid>`: the execution name of an Express ARN. */
const EXPRESS_EXECUTION = /^arn:[^:]+:states:[^:]*:[^:]*:express:[^:]+:([^:]+):[^:]+$/;

/** The execution name in a Standard or Express execution ARN; InvalidArn for anything else. */
export function executionNameOf(arn: string, member: string): string {
  return EXPRESS_EXECUTION.exec(arn)?.[1] ?? parseArn(arn, 'execution', member).name;
}

/**
 * Reads an activity, state machine or execution ARN. Malformed, of another kind, or naming something
 * with an invalid name → InvalidArn. Region and account are not checked here.
 */
export function parseArn(arn: unknown, kind: SfnArnKind, member: string): ParsedArn {
  const s = requiredString(arn, member, MAX_ARN);
  const m = ARN.exec(s);
  const invalid = () => new Fault('InvalidArn', `Invalid Arn: '${s.slice(0, 256)}'`);
  // Express executions keep nothing to describe, stop or read (AWS answers this for their ARNs).
  if (m?.[3] === 'express' && kind === 'execution') throw new Fault('InvalidArn', "Invalid Arn: 'Resource type not valid in this context: express'");
  if (!m || m[3] !== kind) throw invalid();
  const [, region, account, , rest] = m as unknown as [string, string, string, string, string];
  const parts = rest.split(':');
  if (kind === 'execution') {
    // A Distributed Map's child runs the labelled state machine `<stateMachine>/<label>`.
    const sm = parts[0]!.split('/');
    if (parts.length !== 2 || sfnNameProblem(parts[1]!) || sm.length > 2 || sm.some((p) => sfnNameProblem(p))) throw invalid();
    return { name: parts[1]!, stateMachineName: parts[0]!, region, account };
  }
  // Versions and aliases (`…:stateMachine:<name>:<qualifier>`) are read by parseStateMachineRef.
  if (parts.length !== 1 || sfnNameProblem(parts[0]!)) throw invalid();
  return { name: parts[0]!, region, account };
}

/** What a state machine ARN names: the state machine, one of its versions, or one of its aliases. */
export interface StateMachineRef extends ParsedArn { version?: number; alias?: string }

/** AWS's alias name rule: letters, digits, `_`, `-`, `.`, and at least one that is not a digit (so it never reads as a version). */
const ALIAS_NAME = /^(?=.*[a-zA-Z_\-.])[a-zA-Z0-9_\-.]{1,80}$/;
/** A version number: a positive integer without leading zeros. */
const VERSION = /^[1-9]\d{0,9}$/;

/** Why a string is not an alias name (the constraint of AWS's ValidationException), or undefined. */
export function aliasNameProblem(name: string): string | undefined {
  if (name.length > MAX_NAME) return `Member must have length less than or equal to ${MAX_NAME}`;
  return ALIAS_NAME.test(name) ? undefined : 'Member must satisfy regular expression pattern: ^(?=.*[a-zA-Z_\\-\\.])[a-zA-Z0-9_\\-\\.]+$';
}

/**
 * Reads a state machine ARN that may be qualified: `…:stateMachine:<name>` (the state machine),
 * `…:<n>` (version n) or `…:<alias>`. `allow` says which forms the action takes; any other → InvalidArn.
 */
export function parseStateMachineRef(arn: unknown, member: string, allow: { version?: boolean; alias?: boolean; plain?: boolean }, max = MAX_ARN): StateMachineRef {
  const s = requiredString(arn, member, max);
  const m = ARN.exec(s);
  const invalid = () => new Fault('InvalidArn', `Invalid Arn: '${s.slice(0, 256)}'`);
  if (!m || m[3] !== 'stateMachine') throw invalid();
  const [, region, account, , rest] = m as unknown as [string, string, string, string, string];
  const parts = rest.split(':');
  if (parts.length > 2 || sfnNameProblem(parts[0]!)) throw invalid();
  const base = { name: parts[0]!, region, account };
  if (parts.length === 1) {
    if (allow.plain === false) throw invalid();
    return base;
  }
  const q = parts[1]!;
  if (VERSION.test(q) && allow.version) return { ...base, version: Number(q) };
  if (!VERSION.test(q) && ALIAS_NAME.test(q) && allow.alias) return { ...base, alias: q };
  throw invalid();
}

/** The state machine ARN of a version or alias ARN (its first seven `:` parts, partition included). */
export const unqualifiedArn = (arn: string): string => arn.split(':').slice(0, 7).join(':');

/** `<stateMachineArn>:<n>` */
export const versionArn = (stateMachineArn: string, version: number): string => `${stateMachineArn}:${version}`;

/** `<stateMachineArn>:<aliasName>` */
export const aliasArn = (stateMachineArn: string, alias: string): string => `${stateMachineArn}:${alias}`;

// arn:<partition>:iam::<12-digit account>:role/<optional path/><name>
const ROLE_ARN = /^arn:aws(?:-[a-z]+)*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;

/** An IAM role ARN (`arn:aws:iam::<12 digits>:role/<name>`), required; bad syntax → InvalidArn. */
export function parseRoleArn(value: unknown, member: string): string {
  const s = requiredString(value, member, MAX_ARN);
  if (!ROLE_ARN.test(s)) throw new Fault('InvalidArn', `Invalid Arn: '${s}'`);
  return s;
}
