import { Readable } from 'node:stream';
import * as sfnSdk from '@aws-sdk/client-sfn';
import * as swfSdk from '@aws-sdk/client-swf';
import { NormalizedSchema } from '@smithy/core/schema';

/**
 * Checks a raw AWS JSON 1.0 answer against the AWS service model as the real SDK for JavaScript
 * holds it (its `dist-cjs` schemas, the same shapes as botocore's service-2.json). Every AWS SDK
 * silently drops a member it does not know, so a field that looks right in our raw JSON can be
 * invisible to every user: this finds such members, members of the wrong type, empty strings and
 * required members that are absent.
 */

export type WireApi = 'swf' | 'sfn';

export interface ShapeProblem {
  /** `events[3].passStateEnteredEventDetails` */
  path: string;
  /**
   * dropped: the SDK does not know the member; changed: the SDK returned another value; type: not
   * the model's type; empty: an empty string; missing: a member the model requires is absent.
   */
  kind: 'dropped' | 'changed' | 'type' | 'empty' | 'missing';
  detail: string;
}

const MODULES: Record<WireApi, Record<string, unknown>> = { swf: swfSdk, sfn: sfnSdk };
const CLIENTS: Record<WireApi, new (c: object) => { send(c: unknown): Promise<unknown> }> = {
  swf: swfSdk.SWFClient as never, sfn: sfnSdk.SFNClient as never,
};

/** The output shape of one operation (`DescribeDomain` → DomainDetail). */
function outputSchema(api: WireApi, action: string): NormalizedSchema {
  const op = MODULES[api][`${action}$`] as unknown[] | undefined;
  if (!Array.isArray(op)) throw new Error(`${api} has no operation ${action} in the AWS SDK's model`);
  return NormalizedSchema.of(op[5] as never);
}

/** One client per API whose request handler answers the body of the call in progress. */
const clients = new Map<WireApi, { send(c: unknown): Promise<unknown> }>();
let answering = '';
let queue: Promise<unknown> = Promise.resolve();

function clientFor(api: WireApi) {
  let client = clients.get(api);
  if (!client) {
    const requestHandler = {
      handle: async () => ({
        response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Readable.from([Buffer.from(answering)]) },
      }),
    };
    client = new CLIENTS[api]({
      region: 'us-east-1', endpoint: 'http://127.0.0.1:1', maxAttempts: 1, requestHandler,
      credentials: { accessKeyId: 'AKIDWIRESHAPES', secretAccessKey: 'wire-shapes' },
    });
    clients.set(api, client);
  }
  return client;
}

/** What the real SDK returns for this raw body (its deserializer, through a request handler that answers it). */
export function sdkOutput(api: WireApi, action: string, body: string): Promise<Record<string, unknown>> {
  const Command = MODULES[api][`${action}Command`] as (new (input: object) => unknown) | undefined;
  if (!Command) throw new Error(`${api} has no ${action}Command`);
  // One call at a time: the handler answers the body of the call in progress.
  const result = queue.then(async () => {
    answering = body;
    const { $metadata: _, ...out } = await clientFor(api).send(new Command({})) as Record<string, unknown>;
    return out;
  });
  queue = result.catch(() => undefined);
  return result;
}

/** Members whose model allows an empty string (ResourceTagValue: min 0). */
const MAY_BE_EMPTY = /^ListTagsForResource\.tags\[\d+\]\.value$/;

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Members of `raw` that the model does not have or types differently (walks the schema). */
export function schemaProblems(ns: NormalizedSchema, raw: unknown, path: string, out: ShapeProblem[]): void {
  const want = (ok: boolean, model: string) => {
    if (!ok) out.push({ path, kind: 'type', detail: `model has ${model}, raw has ${kindOf(raw)} ${JSON.stringify(raw)?.slice(0, 80)}` });
    return ok;
  };
  if (ns.isStructSchema() || ns.isUnionSchema()) {
    if (!want(kindOf(raw) === 'object', 'a structure')) return;
    const members = new Map(ns.structIterator());
    // The SDK's static struct schema lists its required members first and counts them last.
    const sc = ns.getSchema() as unknown[];
    const required = Array.isArray(sc) && Array.isArray(sc[4]) && typeof sc[6] === 'number' ? (sc[4] as string[]).slice(0, sc[6]) : [];
    for (const k of required) {
      if ((raw as Record<string, unknown>)[k] === undefined) out.push({ path: `${path}.${k}`, kind: 'missing', detail: `${ns.getName() ?? 'the shape'} requires ${k}` });
    }
    for (const [k, v] of Object.entries(raw as object)) {
      const m = members.get(k);
      if (m) schemaProblems(m, v, `${path}.${k}`, out);
      else out.push({ path: `${path}.${k}`, kind: 'dropped', detail: `${ns.getName() ?? 'the shape'} has no member ${k}` });
    }
  } else if (ns.isListSchema()) {
    if (want(Array.isArray(raw), 'a list')) (raw as unknown[]).forEach((v, i) => schemaProblems(ns.getValueSchema(), v, `${path}[${i}]`, out));
  } else if (ns.isMapSchema()) {
    if (want(kindOf(raw) === 'object', 'a map')) {
      for (const [k, v] of Object.entries(raw as object)) schemaProblems(ns.getValueSchema(), v, `${path}.${k}`, out);
    }
  } else if (ns.isTimestampSchema()) {
    want(typeof raw === 'number' && Number.isFinite(raw), 'a timestamp (epoch seconds number)');
  } else if (ns.isNumericSchema() || ns.isBigIntegerSchema() || ns.isBigDecimalSchema()) {
    want(typeof raw === 'number' && Number.isFinite(raw), 'a number');
  } else if (ns.isBooleanSchema()) {
    want(typeof raw === 'boolean', 'a boolean');
  } else if (ns.isStringSchema() || ns.isBlobSchema()) {
    if (want(typeof raw === 'string', 'a string') && raw === '' && !MAY_BE_EMPTY.test(path)) out.push({ path, kind: 'empty', detail: 'empty string member (AWS omits a member it has no value for)' });
  }
}

/** Deep comparison of the raw JSON with the SDK's output: what the SDK lost or changed. */
function sdkProblems(raw: unknown, sdk: unknown, path: string, out: ShapeProblem[]): void {
  if (sdk === undefined) {
    out.push({ path, kind: 'dropped', detail: 'the AWS SDK drops it' });
    return;
  }
  if (sdk instanceof Date) {
    if (typeof raw !== 'number' || Math.abs(sdk.getTime() - raw * 1000) > 0.5) out.push({ path, kind: 'changed', detail: `timestamp ${JSON.stringify(raw)} became ${sdk.toISOString()}` });
    return;
  }
  if (Array.isArray(raw) && Array.isArray(sdk)) {
    raw.forEach((v, i) => sdkProblems(v, sdk[i], `${path}[${i}]`, out));
    return;
  }
  if (kindOf(raw) === 'object' && kindOf(sdk) === 'object') {
    for (const [k, v] of Object.entries(raw as object)) sdkProblems(v, (sdk as Record<string, unknown>)[k], `${path}.${k}`, out);
    return;
  }
  if (!Object.is(raw, sdk)) out.push({ path, kind: 'changed', detail: `${JSON.stringify(raw)} became ${JSON.stringify(sdk)}` });
}

/** Every problem of one successful answer (`body` is the raw HTTP body the gateway sent). */
export async function checkWireShape(api: WireApi, action: string, body: string): Promise<ShapeProblem[]> {
  const raw = body.length === 0 ? {} : JSON.parse(body) as unknown;
  const problems: ShapeProblem[] = [];
  schemaProblems(outputSchema(api, action), raw, action, problems);
  sdkProblems(raw, await sdkOutput(api, action, body), action, problems);
  // An empty poll (no task within the poll time) has none of the task's required members, as on AWS
  // (reference/swf-api.md: `{"startedEventId":0}`; clients test for a missing taskToken).
  const emptyPoll = /^PollFor(Activity|Decision)Task$/.test(action) && (raw as { taskToken?: unknown }).taskToken === undefined;
  // The schema walk and the SDK agree on a dropped member: report it once.
  const seen = new Set<string>();
  return problems.filter((p) => {
    if (emptyPoll && p.kind === 'missing' && p.path.lastIndexOf('.') === action.length) return false;
    const key = `${p.kind}:${p.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Problems as lines: `dropped GetExecutionHistory.events[1].passStateEnteredEventDetails: …`. */
export const formatProblems = (ps: readonly ShapeProblem[]): string => ps.map((p) => `${p.kind} ${p.path}: ${p.detail}`).join('\n');

/**
 * The shape facts of one answer: `Action events[ActivityTaskScheduled].activityTaskScheduledEventAttributes.input:string`
 * (list items of history events are named by their event type, other list indices collapsed).
 * Two answers with the same facts test the same thing; the corpus keeps one answer per new fact.
 */
export function shapeFacts(action: string, raw: unknown): Set<string> {
  const facts = new Set<string>();
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) {
      for (const item of v) {
        const o = item as Record<string, unknown> | null;
        const tag = o && typeof o === 'object' ? (o.eventType ?? o.type) : undefined;
        walk(item, `${path}[${typeof tag === 'string' ? tag : ''}]`);
      }
      if (v.length === 0) facts.add(`${path}:empty-list`);
    } else if (v !== null && typeof v === 'object') {
      facts.add(`${path}:object`);
      for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
    } else {
      facts.add(`${path}:${v === '' ? 'empty-string' : kindOf(v)}`);
    }
  };
  walk(raw, action);
  return facts;
}

/** SWF `eventType`s and Step Functions `type`s of the history events in one answer. */
export function eventTypesOf(raw: unknown): string[] {
  const events = (raw as { events?: { eventType?: string; type?: string }[] } | null)?.events ?? [];
  return events.map((e) => e.eventType ?? e.type ?? '');
}
