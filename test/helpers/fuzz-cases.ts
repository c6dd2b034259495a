import fc from 'fast-check';
import { signSigV4 } from '../../src/transport/sigv4.js';
import { encode } from '../../src/protocol/codec.js';
import { REGION, type RawRequest } from './swf-http.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];
export interface Creds { accessKeyId: string; secretAccessKey: string }

/** A valid request for one action, with what its validation may be tested on. */
export interface Template {
  action: string;
  input: { [k: string]: Json };
  required: string[];
  /** Paths to SWF identifiers (names, ids, task lists). */
  ids: Path[];
  /** Paths to enum members. */
  enums?: Path[];
}

/** What a case must be answered with: a status and fault name, or anything well formed ('any'). */
export type Expectation = { status: number | readonly number[]; type: string | readonly string[] } | 'any';

export interface FuzzCase {
  kind: string;
  /** Sent with fetch. */
  request?: RawRequest & { target?: string; body?: string | Uint8Array };
  /** Sent as is on a fresh TCP connection (not even HTTP). */
  raw?: Buffer;
  expect: Expectation;
  /** The body is padded to this many bytes when sent (kept small until then). */
  padTo?: number;
  /** May be held as a long poll: the client gives up after a moment. */
  mayHold?: boolean;
}

const SWF = 'SimpleWorkflowService';
const TYPE_CHANGES: Record<string, Json[]> = {
  string: [7, 0, -1.5, true, false, {}, [], ['x'], { a: 1 }],
  number: ['5', '', true, {}, [], [1]],
  boolean: ['true', 1, 0, {}, []],
  object: ['x', 1, true, [], ['name']],
  array: ['x', 1, false, {}, { 0: 'x' }],
};
const jsonKind = (v: Json) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

function allPaths(v: Json, prefix: Path = []): Path[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => [[...prefix, i], ...allPaths(x, [...prefix, i])]);
  if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [[...prefix, k], ...allPaths(x, [...prefix, k])]);
  return [];
}

function setAt(v: Json, path: Path, value: Json | undefined): Json {
  const copy = structuredClone(v);
  let node: any = copy;
  for (const k of path.slice(0, -1)) node = node[k];
  const last = path.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

function getAt(v: Json, path: Path): Json {
  let node: any = v;
  for (const k of path) node = node[k];
  return node;
}

const printable = (max: number) => fc.string({ unit: 'binary-ascii', maxLength: max }).map((s) => s.replace(/[^\x21-\x7e]/g, ''));
const otherKeyId = fc.stringMatching(/^AKID[A-Z0-9]{4,20}$/);
const notIdentifier = fc.constantFrom('bad:name', 'a/b', 'x|y', ' lead', 'trail ', 'arn', 'tab\there', 'nul\u0000', '', '\u0085');

/**
 * Every case is either refused with a known fault (mutated templates, bad JSON, unknown targets,
 * oversized bodies, bad signatures, non-HTTP bytes) or, for random members on read-only actions,
 * anything well formed. Nothing here may write: the test checks the state afterwards.
 */
export function fuzzCases(o: { templates: Template[]; readOnly: string[]; actions: ReadonlySet<string>; key: Creds; port: number; pool: Json[] }): fc.Arbitrary<FuzzCase> {
  const host = `127.0.0.1:${o.port}`;
  const signed = (target: string, body: string | Uint8Array, opts: { creds?: Creds; service?: string; now?: number; contentType?: string } = {}) => {
    const headers: Record<string, string> = { 'content-type': opts.contentType ?? 'application/x-amz-json-1.0', 'x-amz-target': target };
    const signable = { host: [host], ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])) };
    const auth = signSigV4({ method: 'POST', path: '/', query: '', headers: signable, body: Buffer.from(body) },
      opts.creds ?? o.key, { region: REGION, service: opts.service ?? 'swf', now: opts.now });
    return { ...headers, ...auth };
  };
  const ok = (t: Template, body: string | Uint8Array, extra: Partial<FuzzCase> & { kind: string; expect: Expectation }): FuzzCase =>
    ({ request: { target: `${SWF}.${t.action}`, body, headers: signed(`${SWF}.${t.action}`, body) }, ...extra });
  const template = fc.constantFrom(...o.templates);
  const refusedAs = (type: string, status = 400) => ({ status, type });

  const wrongType = template.chain((t) => fc.constantFrom(...allPaths(t.input)).chain((path) => {
    const kind = jsonKind(getAt(t.input, path));
    return fc.constantFrom(...(TYPE_CHANGES[kind] ?? ['x'])).map((value) =>
      ok(t, JSON.stringify(setAt(t.input, path, value)), { kind: `wrong type at ${t.action}.${path.join('.')}`, expect: refusedAs('SerializationException') }));
  }));
  const missing = template.filter((t) => t.required.length > 0).chain((t) => fc.constantFrom(...t.required).chain((member) =>
    fc.constantFrom(undefined, null).map((v) =>
      ok(t, JSON.stringify(setAt(t.input, [member], v as Json)), { kind: `missing ${t.action}.${member}`, expect: refusedAs('ValidationException') }))));
  const tooLong = template.chain((t) => fc.constantFrom(...allPaths(t.input).filter((p) => typeof getAt(t.input, p) === 'string')).chain((path) =>
    fc.tuple(fc.integer({ min: 33_000, max: 66_000 }), fc.constantFrom('x', 'é', '𝄞', '\\"')).map(([n, c]) =>
      ok(t, JSON.stringify(setAt(t.input, path, c.repeat(Math.ceil(n / c.length)))), { kind: `huge string at ${t.action}.${path.join('.')}`, expect: refusedAs('ValidationException') }))));
  const badId = template.filter((t) => t.ids.length > 0).chain((t) => fc.tuple(fc.constantFrom(...t.ids), notIdentifier).map(([path, v]) =>
    ok(t, JSON.stringify(setAt(t.input, path, v)), { kind: `bad identifier at ${t.action}.${path.join('.')}`, expect: refusedAs('ValidationException') })));
  const badEnum = template.filter((t) => (t.enums ?? []).length > 0).chain((t) => fc.tuple(fc.constantFrom(...t.enums!), fc.string({ maxLength: 20 })).map(([path, v]) =>
    ok(t, JSON.stringify(setAt(t.input, path, `${v}~`)), { kind: `bad enum at ${t.action}.${path.join('.')}`, expect: refusedAs('ValidationException') })));
  const badJson = fc.oneof(
    template.chain((t) => { const s = JSON.stringify(t.input); return fc.integer({ min: 1, max: s.length - 1 }).map((n) => ok(t, s.slice(0, n), { kind: 'truncated JSON', expect: refusedAs('SerializationException') })); }),
    // Junk before or after the object (never inside a string, where it could make another valid request).
    fc.tuple(template, fc.constantFrom('{', '}', ',', '"', '[', ']', 'undefined', "'", '\\', 'NaN', '/*', '{}', 'x'), fc.boolean()).map(([t, junk, before]) => {
      const s = JSON.stringify(t.input);
      return ok(t, before ? `${junk}${s}` : `${s}${junk}`, { kind: 'JSON with junk around it', expect: refusedAs('SerializationException') });
    }),
    fc.tuple(template, fc.oneof(fc.jsonValue().filter((v) => v === null || typeof v !== 'object' || Array.isArray(v)), fc.constant(null))).map(([t, v]) =>
      ok(t, JSON.stringify(v), { kind: 'non-object body', expect: refusedAs('SerializationException') })),
    fc.tuple(template, fc.uint8Array({ minLength: 1, maxLength: 64 })).map(([t, bytes]) =>
      ok(t, Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff, ...bytes]), Buffer.from('"}')]), { kind: 'invalid UTF-8', expect: refusedAs('SerializationException') })),
  );
  const unknownTarget = fc.oneof(
    printable(60),
    printable(40).map((a) => `${SWF}.${a}`),
    fc.constantFrom('toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'prototype', 'listDomains', 'ListDomains ').map((a) => `${SWF}.${a}`),
    printable(30).map((a) => `AWSStepFunctions.${a}`),
  ).filter((target) => !(target.startsWith(`${SWF}.`) && o.actions.has(target.slice(SWF.length + 1))) && target.trim() === target)
    .chain((target) => fc.constantFrom(...o.templates).map((t) => {
      const body = JSON.stringify(t.input);
      const service = target.startsWith('AWSStepFunctions.') ? 'states' : 'swf';
      const headers = signed(target, body, { service });
      return { kind: 'unknown target', request: { target, body, headers }, expect: refusedAs('UnknownOperationException') } satisfies FuzzCase;
    }));
  const badContentType = fc.tuple(template, fc.oneof(fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/x-amz-json-2.0'), printable(30).filter((s) => !/json/i.test(s) && s !== '')))
    .map(([t, contentType]) => {
      const body = JSON.stringify(t.input);
      return { kind: `content type ${contentType}`, request: { target: `${SWF}.${t.action}`, body, headers: signed(`${SWF}.${t.action}`, body, { contentType }) }, expect: refusedAs('SerializationException') } satisfies FuzzCase;
    });
  const tooBig = fc.tuple(template, fc.integer({ min: 1024 * 1024 + 1, max: 1024 * 1024 + 200_000 })).map(([t, n]) =>
    ({ kind: 'body over 1 MiB', request: { target: `${SWF}.${t.action}`, body: JSON.stringify(t.input) }, padTo: n, expect: refusedAs('RequestEntityTooLargeException', 413) }) satisfies FuzzCase);
  const forbidden = (type: string | readonly string[]) => ({ status: 403, type });
  const badSignature = template.chain((t) => {
    const target = `${SWF}.${t.action}`;
    const body = JSON.stringify(t.input);
    const good = () => signed(target, body);
    const refuse = (kind: string, headers: Record<string, string>, type: string | readonly string[], sentBody: string = body): FuzzCase =>
      ({ kind: `signature: ${kind} (${t.action})`, request: { target, body: sentBody, headers }, expect: forbidden(type) });
    return fc.oneof(
      fc.constant(refuse('none', { 'content-type': 'application/x-amz-json-1.0' }, 'MissingAuthenticationTokenException')),
      printable(20).map((s) => refuse('wrong secret', signed(target, body, { creds: { ...o.key, secretAccessKey: `${o.key.secretAccessKey}${s}x` } }), 'InvalidSignatureException')),
      otherKeyId.map((id) => refuse('unknown key', signed(target, body, { creds: { ...o.key, accessKeyId: `${id}X` } }), 'UnrecognizedClientException')),
      fc.integer({ min: 16, max: 60 * 24 * 400 }).map((min) => refuse('expired', signed(target, body, { now: Date.now() - min * 60_000 }), 'InvalidSignatureException')),
      fc.integer({ min: 16, max: 60 * 24 * 400 }).map((min) => refuse('from the future', signed(target, body, { now: Date.now() + min * 60_000 }), 'InvalidSignatureException')),
      fc.constantFrom('states', 'sqs', 'SWF', 'execute-api').map((service) => refuse(`scoped to ${service}`, signed(target, body, { service }), 'InvalidSignatureException')),
      printable(120).map((a) => refuse('garbage', { ...good(), authorization: a }, ['IncompleteSignatureException', 'MissingAuthenticationTokenException'])),
      printable(80).map((a) => refuse('garbage after the algorithm', { ...good(), authorization: `AWS4-HMAC-SHA256 ${a}` }, 'IncompleteSignatureException')),
      fc.integer({ min: 0, max: 63 }).map((i) => {
        const h = good();
        const sig = h.authorization!.slice(-64);
        const flipped = `${sig.slice(0, i)}${sig[i] === 'a' ? 'b' : 'a'}${sig.slice(i + 1)}`;
        return refuse('flipped signature', { ...h, authorization: h.authorization!.slice(0, -64) + flipped }, 'InvalidSignatureException');
      }),
      fc.constant(0).map(() => { const h = good(); return refuse('credential dated another day', { ...h, authorization: h.authorization!.replace(/\/\d{8}\//, '/19991231/') }, 'InvalidSignatureException'); }),
      fc.constantFrom('host;', 'content-type;', ';x-amz-target').map((cut) => { const h = good(); return refuse(`${cut} not signed`, { ...h, authorization: h.authorization!.replace(cut, '') }, 'InvalidSignatureException'); }),
      fc.constant(0).map(() => { const { 'x-amz-date': _, ...h } = good(); return refuse('no x-amz-date', h, 'IncompleteSignatureException'); }),
      fc.string({ minLength: 1, maxLength: 8 }).map((s) => refuse('body changed after signing', good(), 'InvalidSignatureException', JSON.stringify({ ...t.input, extra: s }))),
    );
  });
  const member = fc.constantFrom('name', 'domain', 'registrationStatus', 'maximumPageSize', 'nextPageToken', 'reverseOrder', 'workflowType',
    'activityType', 'execution', 'taskList', 'identity', 'workflowId', 'runId', 'startTimeFilter', 'executionFilter', 'typeFilter', 'tagFilter', 'closeStatusFilter');
  const value: fc.Arbitrary<Json> = fc.oneof(fc.constantFrom(...o.pool), fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>, fc.string({ unit: 'grapheme', maxLength: 300 }));
  const randomRead = fc.tuple(fc.constantFrom(...o.readOnly), fc.dictionary(member, value, { maxKeys: 6 })).map(([action, input]) => {
    const body = JSON.stringify(input);
    const target = `${SWF}.${action}`;
    return { kind: `random members for ${action}`, request: { target, body, headers: signed(target, body) }, expect: 'any', mayHold: action.startsWith('PollFor') } satisfies FuzzCase;
  });
  const notHttp = fc.oneof(
    printable(200).map((s) => Buffer.from(`X${s}\r\n\r\n`)),
    fc.constant(Buffer.from(`POST / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)),
    fc.constant(Buffer.from('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!')),
    fc.constant(Buffer.from('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n')),
    fc.constant(Buffer.from('POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n')),
  ).map((raw) => ({ kind: 'not HTTP', raw, expect: { status: [400, 431], type: 'SerializationException' } }) satisfies FuzzCase);
  return fc.oneof(
    { arbitrary: wrongType, weight: 20 }, { arbitrary: missing, weight: 8 }, { arbitrary: tooLong, weight: 6 },
    { arbitrary: badId, weight: 10 }, { arbitrary: badEnum, weight: 3 }, { arbitrary: badJson, weight: 12 },
    { arbitrary: unknownTarget, weight: 6 }, { arbitrary: badContentType, weight: 3 }, { arbitrary: tooBig, weight: 1 },
    { arbitrary: badSignature, weight: 18 }, { arbitrary: randomRead, weight: 12 }, { arbitrary: notHttp, weight: 1 },
  );
}

/** A request over the NATS API as a `worker` sends it: to `<prefix>.api.<action>`, msgpack, and a reply subject of its choosing. */
export interface NatsFuzzCase {
  kind: string;
  action: string;
  body: Uint8Array;
  /** Undefined: the client's own inbox (a request); else the reply subject named on a plain publish. */
  reply?: string;
  /** The fault answered, or 'dropped' (no answer anywhere: the reply subject is not a client inbox). */
  expect: { type: readonly string[] } | 'dropped';
}

/** Reply subjects that are not a client inbox: engine storage and API subjects, wildcards, malformed inboxes. */
const badReply = (prefix: string) => fc.oneof(
  fc.tuple(fc.nat(15), printable(12).filter((s) => /^[A-Za-z0-9_-]+$/.test(s))).map(([p, id]) => `${prefix}.hist.${p}.d.${id}.r`),
  printable(20).filter((s) => /^[A-Za-z0-9_-]+$/.test(s)).chain((k) => fc.constantFrom(`$KV.${prefix}_runs.${k}.w`, `$KV.${prefix}_registry.d.${k}`, `$KV.${prefix}_sfn_executions.x.${k}.e`)),
  fc.constantFrom(`${prefix}.task.d.d.list`, `${prefix}.vis.d.r`, `${prefix}.ret.0`, `${prefix}.part.0.terminate`, `${prefix}.api.RegisterDomain`,
    '$JS.API.STREAM.PURGE.AF_HISTORY', '$JS.API.STREAM.DELETE.AF_TASKS', '$SYS.REQ.SERVER.PING', '_AF_ENGINE_INBOX.x',
    '_INBOX.>', '_INBOX.*', '_INBOX.a.*.b', '_INBOX', '_INBOX..x', '_INBOXX.y', `_INBOX.${'x'.repeat(300)}`),
);

/**
 * NATS API cases (issue 12): templates with bad reply subjects (dropped), wrong-typed members (msgpack
 * types JSON lacks included), oversized strings inside max_payload, garbage and truncated msgpack,
 * unknown actions. Every case is refused or dropped: none may write.
 */
export function natsFuzzCases(o: { prefix: string; templates: Template[]; actions: ReadonlySet<string> }): fc.Arbitrary<NatsFuzzCase> {
  const template = fc.constantFrom(...o.templates);
  const refused = (...type: string[]) => ({ type });
  const dropped = fc.tuple(template, badReply(o.prefix)).map(([t, reply]) =>
    ({ kind: 'bad reply subject', action: t.action, body: encode(t.input), reply, expect: 'dropped' }) satisfies NatsFuzzCase);
  const wrongType = template.chain((t) => fc.constantFrom(...allPaths(t.input)).chain((path) => {
    const kind = jsonKind(getAt(t.input, path));
    const msgpackOnly: unknown[] = kind === 'string' ? [new Uint8Array([1, 2]), new Date(0), 12n] : [];
    return fc.constantFrom(...(TYPE_CHANGES[kind] ?? ['x']), ...msgpackOnly).map((value) => ({
      kind: `wrong type at ${t.action}.${path.join('.')}`, action: t.action, body: encode(setAt(t.input, path, value as Json)),
      expect: refused('SerializationException', ...(msgpackOnly.includes(value) ? ['ValidationException'] : [])),
    }) satisfies NatsFuzzCase);
  }));
  const oversized = template.chain((t) => fc.constantFrom(...allPaths(t.input).filter((p) => typeof getAt(t.input, p) === 'string')).chain((path) =>
    fc.tuple(fc.integer({ min: 33_000, max: 240_000 }), fc.constantFrom('x', 'é', '𝄞')).map(([n, c]) => ({
      kind: `huge string at ${t.action}.${path.join('.')}`, action: t.action, body: encode(setAt(t.input, path, c.repeat(Math.ceil(n / c.length)))),
      expect: refused('ValidationException'),
    }) satisfies NatsFuzzCase)));
  const garbage = fc.oneof(
    fc.tuple(template, fc.uint8Array({ maxLength: 200 })).map(([t, bytes]) =>
      ({ kind: 'garbage msgpack', action: t.action, body: Uint8Array.from([0xc1, ...bytes]), expect: refused('SerializationException') }) satisfies NatsFuzzCase),
    template.chain((t) => { const b = encode(t.input); return fc.integer({ min: 1, max: b.length - 1 }).map((n) =>
      ({ kind: 'truncated msgpack', action: t.action, body: b.subarray(0, n), expect: refused('SerializationException') }) satisfies NatsFuzzCase); }),
    fc.tuple(template, fc.uint8Array({ minLength: 1, maxLength: 16 })).map(([t, junk]) =>
      ({ kind: 'msgpack with trailing bytes', action: t.action, body: Uint8Array.from([...encode(t.input), ...junk]), expect: refused('SerializationException') }) satisfies NatsFuzzCase),
    fc.tuple(template, fc.constantFrom<unknown>(5, 'x', [], ['name'], null, true, new Uint8Array(4))).map(([t, v]) =>
      ({ kind: 'non-map body', action: t.action, body: encode(v), expect: refused('SerializationException') }) satisfies NatsFuzzCase),
  );
  const unknownAction = fc.tuple(template, fc.oneof(printable(30).filter((a) => /^[A-Za-z0-9_-]+$/.test(a)), fc.constantFrom('toString', 'constructor', '__proto__', 'hasOwnProperty', 'listDomains')))
    .filter(([, a]) => !o.actions.has(a))
    .map(([t, action]) => ({ kind: 'unknown action', action, body: encode(t.input), expect: refused('UnknownOperationException') }) satisfies NatsFuzzCase);
  return fc.oneof(
    { arbitrary: dropped, weight: 10 }, { arbitrary: wrongType, weight: 10 }, { arbitrary: oversized, weight: 3 },
    { arbitrary: garbage, weight: 8 }, { arbitrary: unknownAction, weight: 3 },
  );
}

/**
 * Sends cases `concurrency` at a time; `check` answers what is wrong with a case's answer, if anything.
 * Returns the problems (as `describe` words them), the count of cases per kind, and the time taken.
 */
export async function runFuzzCases<C>(cases: readonly C[], concurrency: number, kindOf: (c: C) => string,
  check: (c: C) => Promise<string | undefined>, describe: (c: C, problem: string) => string): Promise<{ failures: string[]; kinds: Map<string, number>; ms: number }> {
  const failures: string[] = [];
  const kinds = new Map<string, number>();
  let next = 0;
  const t0 = Date.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      const kind = kindOf(c);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      const p = await check(c);
      if (p) failures.push(describe(c, p));
    }
  }));
  return { failures, kinds, ms: Date.now() - t0 };
}
