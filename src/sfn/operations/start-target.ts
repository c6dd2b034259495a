import { randomInt } from 'node:crypto';
import { Fault } from '../../protocol/faults.js';
import { parseStateMachineRef, stateMachineArn } from '../arns.js';
import type { SfnExecutionRecord } from '../kind/execution-records.js';
import type { AliasRoute, StateMachineRecord } from '../records.js';
import type { ServiceContext } from '../../service/context.js';
import { findAlias, findVersion, requireStateMachine } from '../lookup.js';

/** What StartExecution runs: the state machine it belongs to and the record fields of the definition it runs. */
export interface StartTarget {
  stateMachine: StateMachineRecord;
  runs: Pick<SfnExecutionRecord, 'definition' | 'roleArn' | 'revisionId' | 'definitionDate' | 'stateMachineVersionArn' | 'stateMachineAliasArn'>;
}

const doesNotExist = (arn: unknown) => new Fault('StateMachineDoesNotExist', `State Machine Does Not Exist: '${String(arn)}'`);

/** One route of an alias, drawn by weight (weights sum to 100). */
export function pickRoute(routes: readonly AliasRoute[], draw: number = randomInt(100)): AliasRoute {
  let left = draw;
  for (const r of routes) {
    if (left < r.weight) return r;
    left -= r.weight;
  }
  return routes.at(-1)!;
}

/**
 * The definition StartExecution's `stateMachineArn` names: the state machine's latest revision, a
 * published version (`…:<n>`), or the version an alias (`…:<alias>`) draws by weight.
 */
export async function resolveStartTarget(ctx: ServiceContext, arn: unknown): Promise<StartTarget> {
  const ref = parseStateMachineRef(arn, 'stateMachineArn', { version: true, alias: true });
  let versionArn: string | undefined;
  let aliasArn: string | undefined;
  if (ref.alias !== undefined) {
    const alias = await findAlias(ctx, arn as string, ref);
    if (!alias) throw doesNotExist(arn);
    aliasArn = alias.value.arn;
    versionArn = pickRoute(alias.value.routingConfiguration).stateMachineVersionArn;
  } else if (ref.version !== undefined) versionArn = arn as string;
  const stateMachine = (await requireStateMachine(ctx, stateMachineArn(ref, ref.name))).value;
  if (versionArn === undefined) {
    const sm = stateMachine;
    return { stateMachine, runs: { definition: sm.definition, roleArn: sm.roleArn, revisionId: sm.revisionId, definitionDate: sm.updateDate ?? sm.creationDate } };
  }
  const v = await findVersion(ctx, versionArn, parseStateMachineRef(versionArn, 'stateMachineArn', { version: true }));
  if (!v) throw doesNotExist(versionArn);
  const { definition, roleArn, revisionId, creationDate } = v.value;
  return {
    stateMachine,
    runs: { definition, roleArn, revisionId, definitionDate: creationDate, stateMachineVersionArn: versionArn, ...(aliasArn ? { stateMachineAliasArn: aliasArn } : {}) },
  };
}
