import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { aliasArn, aliasNameProblem, parseStateMachineRef, unqualifiedArn, type StateMachineRef } from '../arns.js';
import { sfnKeys, type AliasRoute, type StateMachineAliasRecord } from '../records.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { pageByName, readPaging, requestObject } from '../input.js';
import { aliasesOf, findAlias, findStateMachine, findVersion, requireStateMachine, resourceNotFound } from '../lookup.js';
import { casRetry } from './registry-cas.js';

/** AWS's quota of aliases per state machine. */
const MAX_ALIASES = 100;
const MAX_DESCRIPTION = 256;

/** Reads `routingConfiguration` (1–2 routes, weights 0–100) into `r`'s problems, AWS's wording. */
function readRouting(r: InputReader, required: boolean): AliasRoute[] | undefined {
  const routes = r.list('routingConfiguration', { max: 2, required }, (x) => {
    const stateMachineVersionArn = x.str('stateMachineVersionArn', { min: 1, max: 256, required: true });
    const weight = x.int('weight', { min: 0, max: Number.MAX_SAFE_INTEGER, required: true });
    if (weight !== undefined && weight > 100) x.problem('weight', weight, 'Member must have value less than or equal to 100');
    return { stateMachineVersionArn, weight: weight! };
  });
  if (routes?.length === 0) r.problem('routingConfiguration', '[]', 'Member must have length greater than or equal to 1');
  return routes;
}

/**
 * The checks AWS makes of a routing configuration once its members are well formed: version ARNs
 * (not a state machine's), distinct, of one state machine, weights summing to 100, versions that
 * exist.
 */
async function checkRouting(ctx: ServiceContext, routes: AliasRoute[]): Promise<void> {
  const arns = routes.map((x) => x.stateMachineVersionArn);
  const refs = arns.map((a) => {
    try { return parseStateMachineRef(a, 'stateMachineVersionArn', { version: true, plain: false }); } catch { return undefined; }
  });
  if (refs.some((x) => x === undefined)) {
    throw new Fault('ValidationException', `Routing configuration must contain state machine version ARNs. Received: [${arns.join(', ')}]`);
  }
  if (new Set(arns).size !== arns.length) {
    throw new Fault('ValidationException', `Routing configuration must contain distinct state machine version ARNs. Received: [${arns.join(', ')}]`);
  }
  const base = arns.map(unqualifiedArn);
  if (new Set(base).size !== 1) {
    throw new Fault('ValidationException', `Routing configuration must contain state machine version ARNs of the same state machine. Received: [${arns.join(', ')}]`);
  }
  const sum = routes.reduce((n, x) => n + x.weight, 0);
  if (sum !== 100) throw new Fault('ValidationException', `Sum of routing configuration weights must equal 100. Received: [${routes.map((x) => x.weight).join(', ')}]`);
  for (let i = 0; i < refs.length; i++) if (!(await findVersion(ctx, arns[i]!, refs[i]!))) throw resourceNotFound();
}

const sameRoutes = (a: AliasRoute[], b: AliasRoute[]): boolean =>
  a.length === b.length && a.every((x, i) => x.stateMachineVersionArn === b[i]!.stateMachineVersionArn && x.weight === b[i]!.weight);

/** An alias ARN (`…:stateMachine:<name>:<alias>`), or InvalidArn. */
const readAliasArn = (body: Record<string, unknown>): StateMachineRef => parseStateMachineRef(body.stateMachineAliasArn, 'stateMachineAliasArn', { alias: true, plain: false });

/**
 * CreateStateMachineAlias: an alias over one or two versions of one state machine. The same name
 * with the same routing and description is idempotent; with anything else, ConflictException.
 */
export async function createStateMachineAlias(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const name = r.str('name', { min: 1, max: Number.MAX_SAFE_INTEGER, required: true });
  const nameProblem = name === undefined ? undefined : aliasNameProblem(name);
  if (nameProblem) r.problem('name', name, nameProblem);
  const description = r.str('description', { max: MAX_DESCRIPTION });
  const routes = readRouting(r, true)!;
  r.done();
  await checkRouting(ctx, routes);
  const smArn = unqualifiedArn(routes[0]!.stateMachineVersionArn);
  const arn = aliasArn(smArn, name);
  return casRetry(smArn, async () => {
    const sm = (await requireStateMachine(ctx, smArn)).value;
    if (sm.status === 'DELETING') throw new Fault('StateMachineDeleting', `State Machine is being deleted: '${sm.arn}'`);
    const key = sfnKeys.alias(sm.name, name);
    const existing = (await ctx.registry.get<StateMachineAliasRecord>(key)).value;
    if (existing) {
      if (sameRoutes(existing.routingConfiguration, routes) && existing.description === description) {
        return { stateMachineAliasArn: existing.arn, creationDate: seconds(existing.creationDate) };
      }
      throw new Fault('ConflictException', 'Failed to create alias because an alias with the same name and a different routing configuration already exists.');
    }
    if ((await aliasesOf(ctx, sm.name)).length >= MAX_ALIASES) {
      throw new Fault('ServiceQuotaExceededException', `Maximum number of aliases (${MAX_ALIASES}) reached for state machine '${sm.arn}'`);
    }
    const rec: StateMachineAliasRecord = {
      stateMachineName: sm.name, name, arn, routingConfiguration: routes, creationDate: ctx.clock.now(),
      ...(description !== undefined ? { description } : {}),
    };
    await ctx.registry.create(key, rec);
    return { stateMachineAliasArn: rec.arn, creationDate: seconds(rec.creationDate) };
  });
}

/** DescribeStateMachineAlias: ResourceNotFound unless the ARN names an alias of this region and account. */
export async function describeStateMachineAlias(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  InputReader.of(input).done();
  const held = await findAlias(ctx, body.stateMachineAliasArn as string, readAliasArn(body));
  if (!held) throw resourceNotFound();
  const a = held.value;
  return {
    stateMachineAliasArn: a.arn, name: a.name, routingConfiguration: a.routingConfiguration, creationDate: seconds(a.creationDate),
    ...(a.description !== undefined ? { description: a.description } : {}), ...(a.updateDate !== undefined ? { updateDate: seconds(a.updateDate) } : {}),
  };
}

/** UpdateStateMachineAlias: a new description and/or routing (versions of the alias's own state machine). */
export async function updateStateMachineAlias(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const description = r.str('description', { max: MAX_DESCRIPTION });
  const routes = readRouting(r, false);
  r.done();
  const ref = readAliasArn(body);
  const arn = body.stateMachineAliasArn as string;
  if (description === undefined && routes === undefined) {
    throw new Fault('ValidationException', 'Either the description or the RoutingConfiguration must be specified');
  }
  if (routes) {
    await checkRouting(ctx, routes);
    if (unqualifiedArn(routes[0]!.stateMachineVersionArn) !== unqualifiedArn(arn)) {
      throw new Fault('ValidationException', `Routing configuration must contain state machine version ARNs of the alias's state machine. Received: [${routes.map((x) => x.stateMachineVersionArn).join(', ')}]`);
    }
  }
  return casRetry(arn, async () => {
    const held = await findAlias(ctx, arn, ref);
    if (!held) throw resourceNotFound();
    const sm = await findStateMachine(ctx, unqualifiedArn(arn));
    if (sm?.value.status === 'DELETING') throw new Fault('StateMachineDeleting', `State Machine is being deleted: '${sm.value.arn}'`);
    const next: StateMachineAliasRecord = {
      ...held.value, routingConfiguration: routes ?? held.value.routingConfiguration, updateDate: ctx.clock.now(),
      ...(description !== undefined ? { description } : {}),
    };
    await ctx.registry.update(sfnKeys.alias(ref.name, ref.alias!), next, held.revision);
    return { updateDate: seconds(next.updateDate!) };
  });
}

/** DeleteStateMachineAlias: deleting one that does not exist succeeds (as on AWS). */
export async function deleteStateMachineAlias(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  InputReader.of(input).done();
  const ref = readAliasArn(body);
  const arn = body.stateMachineAliasArn as string;
  return casRetry(arn, async () => {
    const held = await findAlias(ctx, arn, ref);
    if (held) await ctx.registry.remove(sfnKeys.alias(ref.name, ref.alias!), held.revision);
    return {};
  });
}

/**
 * ListStateMachineAliases: a state machine's aliases sorted by name (of a version ARN: the aliases
 * that route to it), maxResults 0–1000 (0 ⇒ 100), opaque nextToken.
 */
export async function listStateMachineAliases(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const paging = readPaging(r);
  r.done();
  const arn = body.stateMachineArn;
  const ref = parseStateMachineRef(arn, 'stateMachineArn', { version: true });
  const sm = (await requireStateMachine(ctx, unqualifiedArn(arn as string))).value;
  if (ref.version !== undefined && !(await findVersion(ctx, arn as string, ref))) throw resourceNotFound();
  const all = (await aliasesOf(ctx, sm.name)).filter((a) => ref.version === undefined || a.routingConfiguration.some((x) => x.stateMachineVersionArn === arn));
  const p = pageByName(all, `aliases:${String(arn)}`, paging);
  return { stateMachineAliases: p.items.map((a) => ({ stateMachineAliasArn: a.arn, creationDate: seconds(a.creationDate) })), nextToken: p.nextToken };
}
