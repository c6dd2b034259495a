import { Fault } from '../domain/faults.js';
import { parseArn } from '../sfn/arns.js';
import { sfnKeys, type ActivityRecord, type StateMachineRecord } from '../sfn/records.js';
import type { ServiceContext } from './context.js';

/** A registry entry with the revision an update or remove must name. */
export interface Held<T> { value: T; revision: number }

/**
 * The activity an ARN names, or undefined. An ARN of another region or account names nothing here.
 * Bad ARNs throw InvalidArn (or ValidationException when missing).
 */
export async function findActivity(ctx: ServiceContext, arn: unknown, member = 'activityArn'): Promise<Held<ActivityRecord> | undefined> {
  const { name } = parseArn(arn, 'activity', member);
  const got = await ctx.registry.get<ActivityRecord>(sfnKeys.activity(name));
  return got.value && got.value.arn === arn ? { value: got.value, revision: got.revision } : undefined;
}

/** The activity an ARN names, or ActivityDoesNotExist. */
export async function requireActivity(ctx: ServiceContext, arn: unknown, member = 'activityArn'): Promise<Held<ActivityRecord>> {
  const held = await findActivity(ctx, arn, member);
  if (!held) throw new Fault('ActivityDoesNotExist', `Activity Does Not Exist: '${String(arn)}'`);
  return held;
}

/** The state machine an ARN names, or undefined (see findActivity). */
export async function findStateMachine(ctx: ServiceContext, arn: unknown, member = 'stateMachineArn'): Promise<Held<StateMachineRecord> | undefined> {
  const { name } = parseArn(arn, 'stateMachine', member);
  const got = await ctx.registry.get<StateMachineRecord>(sfnKeys.stateMachine(name));
  return got.value && got.value.arn === arn ? { value: got.value, revision: got.revision } : undefined;
}

/** The state machine an ARN names, or StateMachineDoesNotExist. */
export async function requireStateMachine(ctx: ServiceContext, arn: unknown, member = 'stateMachineArn'): Promise<Held<StateMachineRecord>> {
  const held = await findStateMachine(ctx, arn, member);
  if (!held) throw new Fault('StateMachineDoesNotExist', `State Machine Does Not Exist: '${String(arn)}'`);
  return held;
}
