import { Fault } from '../protocol/faults.js';
import { parseArn, type StateMachineRef } from './arns.js';
import { byName } from './input.js';
import {
  sfnKeys, type ActivityRecord, type StateMachineAliasRecord, type StateMachineRecord, type StateMachineVersionRecord,
} from './records.js';
import type { ServiceContext } from '../service/context.js';

/** A registry entry with the revision an update or remove must name. */
export interface Held<T> { value: T; revision: number }

/**
 * The activity an ARN names, or undefined. An ARN of another region or account names nothing here.
 * Bad ARNs throw InvalidArn (or ValidationException when missing).
 */
export function findActivity(ctx: ServiceContext, arn: unknown, member = 'activityArn', opts: { fresh?: boolean } = {}): Promise<Held<ActivityRecord> | undefined> {
  return findByArn<ActivityRecord>(ctx, arn, member, 'activity', sfnKeys.activity, opts);
}

/** The activity an ARN names, or ActivityDoesNotExist. */
export async function requireActivity(ctx: ServiceContext, arn: unknown, member = 'activityArn'): Promise<Held<ActivityRecord>> {
  const held = await findActivity(ctx, arn, member);
  if (!held) throw new Fault('ActivityDoesNotExist', `Activity Does Not Exist: '${String(arn)}'`);
  return held;
}

/** The state machine an ARN names, or undefined (see findActivity). */
export function findStateMachine(ctx: ServiceContext, arn: unknown, member = 'stateMachineArn', opts: { fresh?: boolean } = {}): Promise<Held<StateMachineRecord> | undefined> {
  return findByArn<StateMachineRecord>(ctx, arn, member, 'stateMachine', sfnKeys.stateMachine, opts);
}

/**
 * The registry record named by an ARN of this kind, when its stored ARN is exactly that one;
 * `fresh` reads the bucket, not this node's cache (which shows another node's write a moment late).
 */
async function findByArn<T extends { arn: string }>(ctx: ServiceContext, arn: unknown, member: string,
  kind: 'activity' | 'stateMachine', key: (name: string) => string, opts: { fresh?: boolean }): Promise<Held<T> | undefined> {
  const { name } = parseArn(arn, kind, member);
  const got = await ctx.registry.get<T>(key(name), opts);
  return got.value && got.value.arn === arn ? { value: got.value, revision: got.revision } : undefined;
}

/** The state machine an ARN names, or StateMachineDoesNotExist. */
export async function requireStateMachine(ctx: ServiceContext, arn: unknown, member = 'stateMachineArn'): Promise<Held<StateMachineRecord>> {
  const held = await findStateMachine(ctx, arn, member);
  if (!held) throw new Fault('StateMachineDoesNotExist', `State Machine Does Not Exist: '${String(arn)}'`);
  return held;
}

/** AWS's answer for an alias (or a version an alias names) that does not exist. */
export const resourceNotFound = (): Fault => new Fault('ResourceNotFound', 'Request references a resource that does not exist.');

/**
 * A version of a state machine by its parts, when the stored ARN is exactly `arn` (another region
 * or account names nothing here).
 */
export async function findVersion(ctx: ServiceContext, arn: string, ref: StateMachineRef): Promise<Held<StateMachineVersionRecord> | undefined> {
  if (ref.version === undefined) return undefined;
  const got = await ctx.registry.get<StateMachineVersionRecord>(sfnKeys.version(ref.name, ref.version));
  return got.value && got.value.arn === arn ? { value: got.value, revision: got.revision } : undefined;
}

/** An alias by its parts (see findVersion). */
export async function findAlias(ctx: ServiceContext, arn: string, ref: StateMachineRef): Promise<Held<StateMachineAliasRecord> | undefined> {
  if (ref.alias === undefined) return undefined;
  const got = await ctx.registry.get<StateMachineAliasRecord>(sfnKeys.alias(ref.name, ref.alias));
  return got.value && got.value.arn === arn ? { value: got.value, revision: got.revision } : undefined;
}

/** Every version of a state machine, oldest first. */
export async function versionsOf(ctx: ServiceContext, stateMachineName: string): Promise<StateMachineVersionRecord[]> {
  return (await ctx.registry.list<StateMachineVersionRecord>(sfnKeys.versionsOf(stateMachineName))).sort((a, b) => a.version - b.version);
}

/** Every alias of a state machine, sorted by name. */
export async function aliasesOf(ctx: ServiceContext, stateMachineName: string): Promise<StateMachineAliasRecord[]> {
  return (await ctx.registry.list<StateMachineAliasRecord>(sfnKeys.aliasesOf(stateMachineName))).sort(byName);
}
