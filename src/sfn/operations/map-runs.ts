import { Fault } from '../../protocol/faults.js';
import { InputReader } from '../../protocol/validate.js';
import { seconds, type ServiceContext } from '../../service/context.js';
import { requireExecution } from '../execution-lookup.js';
import { requestObject } from '../input.js';
import { readMapRunArn } from '../map-runs/map-run-arns.js';
import { mapRunCounts, type MapRunRecord, type MapRunRecords } from '../map-runs/map-run-records.js';

/** DescribeMapRun, ListMapRuns and UpdateMapRun: the map runs a Distributed Map state starts (see src/sfn/map-runs). */

function mapRuns(ctx: ServiceContext): MapRunRecords {
  if (!ctx.sfnMapRuns) throw new Fault('InternalFailure', 'Step Functions executions are not served by this node');
  return ctx.sfnMapRuns;
}

/** A map run ARN as AWS checks it: required, at most 2,000 characters, of the map run form (InvalidArn). */
function readArn(body: Record<string, unknown>): string {
  const r = InputReader.of(body);
  const arn = r.str('mapRunArn', { min: 1, max: 2000, required: true });
  r.done();
  if (!readMapRunArn(arn)) throw new Fault('InvalidArn', `Invalid Arn: '${arn.slice(0, 256)}'`);
  return arn;
}

const notFound = (arn: string) => new Fault('ResourceNotFound', `Map Run Does Not Exist: '${arn}'`);

/** DescribeMapRun: the run's settings, its item and child execution counts. */
export async function describeMapRun(ctx: ServiceContext, input: unknown): Promise<object> {
  const arn = readArn(requestObject(input));
  const rec = await mapRuns(ctx).get(arn);
  if (!rec) throw notFound(arn);
  return {
    mapRunArn: rec.mapRunArn, executionArn: rec.executionArn, status: rec.status,
    startDate: seconds(rec.startDate), ...(rec.stopDate !== undefined ? { stopDate: seconds(rec.stopDate) } : {}),
    maxConcurrency: rec.maxConcurrency, toleratedFailurePercentage: rec.toleratedFailurePercentage, toleratedFailureCount: rec.toleratedFailureCount,
    ...mapRunCounts(rec), redriveCount: 0,
  };
}

const readCursor = (token: string): number => {
  const n = /^m(\d{1,7})$/.exec(token);
  if (!n) throw new Fault('InvalidToken', `Invalid Token: '${token.slice(0, 64)}'`);
  return Number(n[1]);
};

/** ListMapRuns: an execution's map runs (oldest first), maxResults 0–1000 (0 ⇒ 100) a page. */
export async function listMapRuns(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of(input);
  const maxResults = r.int('maxResults', { min: 0, max: 1000 }) || 100;
  const nextToken = r.str('nextToken', { min: 1, max: 3096 });
  r.done();
  const exec = await requireExecution(ctx, body.executionArn);
  const from = nextToken === undefined ? 0 : readCursor(nextToken);
  const all = await mapRuns(ctx).ofExecution(exec.executionArn);
  const page = all.slice(from, from + maxResults);
  return {
    mapRuns: page.map((m) => ({
      executionArn: m.executionArn, mapRunArn: m.mapRunArn, stateMachineArn: m.stateMachineArn,
      startDate: seconds(m.startDate), ...(m.stopDate !== undefined ? { stopDate: seconds(m.stopDate) } : {}),
    })),
    ...(from + maxResults < all.length ? { nextToken: `m${from + maxResults}` } : {}),
  };
}

/** UpdateMapRun: maxConcurrency, toleratedFailurePercentage and toleratedFailureCount of a running map run (the runner reads them at its next turn). */
export async function updateMapRun(ctx: ServiceContext, input: unknown): Promise<object> {
  const body = requestObject(input);
  const r = InputReader.of({ maxConcurrency: body.maxConcurrency, toleratedFailureCount: body.toleratedFailureCount });
  const maxConcurrency = r.int('maxConcurrency', { min: 0, max: Number.MAX_SAFE_INTEGER });
  const toleratedFailureCount = r.int('toleratedFailureCount', { min: 0, max: Number.MAX_SAFE_INTEGER });
  const pct = body.toleratedFailurePercentage;
  if (pct !== undefined && pct !== null && typeof pct !== 'number') throw new Fault('SerializationException', "Expected number at 'toleratedFailurePercentage'");
  if (typeof pct === 'number' && !(pct >= 0 && pct <= 100)) r.problem('toleratedFailurePercentage', pct, 'Member must be between 0.0 and 100.0');
  r.done();
  const arn = readArn({ mapRunArn: body.mapRunArn });
  if (maxConcurrency === undefined && toleratedFailureCount === undefined && typeof pct !== 'number') {
    throw new Fault('ValidationException', 'At least one of the parameters maxConcurrency, toleratedFailurePercentage, toleratedFailureCount must be specified');
  }
  let closed = false;
  const updated = await mapRuns(ctx).update(arn, (rec): MapRunRecord | undefined => {
    if (rec.status !== 'RUNNING') { closed = true; return undefined; }
    return {
      ...rec,
      ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
      ...(toleratedFailureCount !== undefined ? { toleratedFailureCount, byCount: true } : {}),
      ...(typeof pct === 'number' ? { toleratedFailurePercentage: pct, byPercentage: true } : {}),
    };
  });
  if (closed) throw new Fault('ValidationException', `Map Run is not running: '${arn}'`);
  if (!updated) throw notFound(arn);
  return {};
}
