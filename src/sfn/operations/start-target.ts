import { Fault } from '../../protocol/faults.js';
import { parseStateMachineRef, unqualifiedArn } from '../arns.js';
import type { SfnExecutionRecord } from '../kind/execution-records.js';
import type { AliasRoute, StateMachineRecord } from '../records.js';
import type { ServiceContext } from '../../service/context.js';
import { findAlias, findVersion, requireStateMachine } from '../lookup.js';
import { hasTestCase } from '../mocks/mock-config.js';

/** What StartExecution runs: the state machine it belongs to and the record fields of the definition it runs. */
export interface StartTarget {
  stateMachine: StateMachineRecord;
  runs: Pick<SfnExecutionRecord, 'definition' | 'roleArn' | 'revisionId' | 'definitionDate' | 'stateMachineVersionArn' | 'stateMachineAliasArn' | 'mockTestCase'>;
}

const doesNotExist = (arn: unknown) => new Fault('StateMachineDoesNotExist', `State Machine Does Not Exist: '${String(arn)}'`);

/** How many aliases' routing state a node keeps (the least recently used go first). */
const MAX_ROUTED = 10_000;
/** Smooth weighted round-robin credit per alias and routing configuration (this node's starts). */
const credits = new Map<string, number[]>();

/**
 * One route of an alias for the next start, by smooth weighted round-robin: every route earns its
 * weight, the richest is taken and pays 100. Over any run of starts on one node the shares follow
 * the weights exactly (80/20 gives 4 of every 5 to the first), where a random draw is only right on
 * average; a new routing configuration starts afresh.
 */
export function pickRoute(aliasArn: string, routes: readonly AliasRoute[]): AliasRoute {
  const key = `${aliasArn} ${JSON.stringify(routes)}`;
  const c = credits.get(key) ?? routes.map(() => 0);
  let best = 0;
  for (let i = 0; i < routes.length; i++) {
    c[i]! += routes[i]!.weight;
    if (c[i]! > c[best]!) best = i;
  }
  c[best]! -= 100;
  credits.delete(key);
  credits.set(key, c);
  if (credits.size > MAX_ROUTED) credits.delete(credits.keys().next().value!);
  return routes[best]!;
}

/**
 * The definition StartExecution's `stateMachineArn` names: the state machine's latest revision, a
 * published version (`…:<n>`), or the version an alias (`…:<alias>`) draws by weight; with a
 * `#<TestCaseName>` suffix (a mock configuration loaded), that test case of the state machine.
 */
export async function resolveStartTarget(ctx: ServiceContext, given: unknown): Promise<StartTarget> {
  const { arn, testCase } = splitTestCase(ctx, given);
  const target = await resolveDefinition(ctx, arn);
  if (testCase === undefined) return target;
  const name = target.stateMachine.name;
  if (!hasTestCase(ctx.sfnMocks!, name, testCase)) {
    throw new Fault('InvalidName', `Invalid mock test case name '${testCase.slice(0, 256)}' for state machine '${name}': the mock configuration does not define it.`);
  }
  return { ...target, runs: { ...target.runs, mockTestCase: testCase } };
}

/**
 * Step Functions Local's `<stateMachineArn>#<TestCaseName>`, read only when the node has a mock
 * configuration (without one, `#` is not allowed in an ARN and the whole value is an InvalidArn, as on AWS).
 */
function splitTestCase(ctx: ServiceContext, arn: unknown): { arn: unknown; testCase?: string } {
  if (!ctx.sfnMocks || typeof arn !== 'string') return { arn };
  const at = arn.indexOf('#');
  return at < 0 ? { arn } : { arn: arn.slice(0, at), testCase: arn.slice(at + 1) };
}

async function resolveDefinition(ctx: ServiceContext, arn: unknown): Promise<StartTarget> {
  const ref = parseStateMachineRef(arn, 'stateMachineArn', { version: true, alias: true });
  let versionArn: string | undefined;
  let aliasArn: string | undefined;
  if (ref.alias !== undefined) {
    const alias = await findAlias(ctx, arn as string, ref);
    if (!alias) throw doesNotExist(arn);
    aliasArn = alias.value.arn;
    versionArn = pickRoute(alias.value.arn, alias.value.routingConfiguration).stateMachineVersionArn;
  } else if (ref.version !== undefined) versionArn = arn as string;
  const stateMachine = (await requireStateMachine(ctx, unqualifiedArn(arn as string))).value;
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
