import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * AWS Signature Version 4 (header form) as the AWS SDKs send it to AWS JSON 1.0 services, with the
 * fault names those services answer with (the `__type` that JSON-protocol SDKs read).
 */
export type SigV4FaultName =
  | 'MissingAuthenticationTokenException' | 'IncompleteSignatureException'
  | 'UnrecognizedClientException' | 'InvalidSignatureException';

/** A rejected signature; the gateway answers it with HTTP 403 and `{"__type", "message"}`. */
export class SigV4Failure extends Error {
  override readonly name: SigV4FaultName;
  constructor(name: SigV4FaultName, message: string) {
    super(message);
    this.name = name;
  }
}

export const ALGORITHM = 'AWS4-HMAC-SHA256';
/** How far x-amz-date may be from the server's clock, as AWS allows. */
export const MAX_SKEW_MS = 15 * 60_000;

/** access key id → secret access key */
export type AccessKeys = ReadonlyMap<string, string>;

/** What the verifier needs of a request: lowercase header names, each with its values in order. */
export interface SignableRequest {
  method: string;
  path: string;
  query: string;
  headers: Readonly<Record<string, readonly string[] | undefined>>;
  body: Uint8Array;
}

export interface ParsedAuthorization {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

export interface VerifiedCaller {
  accessKeyId: string;
  region: string;
  service: string;
}

const sha256hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
const uriEncode = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function canonicalQuery(query: string): string {
  if (!query) return '';
  const pairs = query.split('&').filter(Boolean).map((p) => {
    const i = p.indexOf('=');
    const [k, v] = i < 0 ? [p, ''] : [p.slice(0, i), p.slice(i + 1)];
    return [uriEncode(safeDecode(k)), uriEncode(safeDecode(v))] as const;
  });
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

function safeDecode(s: string): string {
  try { return decodeURIComponent(s.replace(/\+/g, '%20')); } catch { return s; }
}

/** Path normalised and encoded as the SDK signers do for non-S3 services (segments encoded once more). */
function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const s of path.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(s);
  }
  const joined = `/${segments.join('/')}${segments.length > 0 && path.endsWith('/') ? '/' : ''}`;
  return uriEncode(joined).replace(/%2F/g, '/');
}

const headerValue = (values: readonly string[] | undefined): string =>
  (values ?? []).map((v) => v.trim().replace(/\s+/g, ' ')).join(',');

/** The canonical request of SigV4: method, path, query, signed headers with their values, payload hash. */
export function canonicalRequest(req: SignableRequest, signedHeaders: readonly string[], payloadHash: string): string {
  return [
    req.method.toUpperCase(),
    canonicalPath(req.path),
    canonicalQuery(req.query),
    signedHeaders.map((h) => `${h}:${headerValue(req.headers[h])}\n`).join(''),
    signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
}

export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

function computeSignature(req: SignableRequest, a: Omit<ParsedAuthorization, 'signature' | 'accessKeyId'>,
  amzDate: string, secret: string, payloadHash: string): string {
  const scope = `${a.date}/${a.region}/${a.service}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, scope, sha256hex(canonicalRequest(req, a.signedHeaders, payloadHash))].join('\n');
  return createHmac('sha256', signingKey(secret, a.date, a.region, a.service)).update(stringToSign, 'utf8').digest('hex');
}

/** Reads `AWS4-HMAC-SHA256 Credential=AKID/date/region/service/aws4_request, SignedHeaders=a;b, Signature=hex`. */
export function parseAuthorization(header: string): ParsedAuthorization {
  const incomplete = (m: string) => new SigV4Failure('IncompleteSignatureException', m);
  const space = header.indexOf(' ');
  const algorithm = space < 0 ? header : header.slice(0, space);
  if (algorithm !== ALGORITHM) throw incomplete(`Unsupported AWS 'algorithm': '${algorithm.slice(0, 64)}'. Use ${ALGORITHM}.`);
  const params = new Map<string, string>();
  for (const part of header.slice(space + 1).split(',')) {
    const i = part.indexOf('=');
    if (i > 0) params.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  const missing = ['Credential', 'SignedHeaders', 'Signature'].filter((k) => !params.get(k));
  if (missing.length) throw incomplete(missing.map((k) => `Authorization header requires '${k}' parameter.`).join(' '));
  const credential = params.get('Credential')!.split('/');
  if (credential.length !== 5 || credential.some((c) => c === '') || credential[4] !== 'aws4_request' || !/^\d{8}$/.test(credential[1]!)) {
    throw incomplete(`Credential should be scoped to a valid date, region and service: '<key>/<yyyyMMdd>/<region>/<service>/aws4_request', got '${params.get('Credential')!.slice(0, 200)}'.`);
  }
  const signedHeaders = params.get('SignedHeaders')!.split(';');
  if (signedHeaders.some((h) => !/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(h))) throw incomplete('SignedHeaders must be a ;-separated list of lowercase header names.');
  const signature = params.get('Signature')!;
  if (!/^[0-9a-f]{64}$/.test(signature)) throw incomplete('Signature must be 64 lowercase hex digits.');
  const [accessKeyId, date, region, service] = credential as [string, string, string, string];
  return { accessKeyId, date, region, service, signedHeaders, signature };
}

/** `x-amz-target` → `'X-Amz-Target'`, the way AWS names a header in its faults. */
const shownHeader = (h: string): string => `'${h.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('-')}'`;

/**
 * The first header that is present but unsigned and that AWS requires to be signed: `host`, then
 * `content-type` and every `x-amz-*` header (`x-amz-date`, `x-amz-target`, …). An unsigned target
 * would let a captured request be replayed as another action, so nothing of it may be left out.
 */
function unsignedHeader(req: SignableRequest, signed: readonly string[]): string | undefined {
  if (!signed.includes('host')) return "'Host' or ':authority'";
  for (const h of Object.keys(req.headers).sort()) {
    if (req.headers[h] === undefined || signed.includes(h)) continue;
    if (h === 'content-type' || h.startsWith('x-amz-')) return shownHeader(h);
  }
  return undefined;
}

const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

function parseAmzDate(s: string): number {
  const m = AMZ_DATE.exec(s);
  const t = m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : NaN;
  if (!Number.isFinite(t) || new Date(t).toISOString().replace(/[-:]|\.\d{3}/g, '') !== s) {
    throw new SigV4Failure('IncompleteSignatureException', `Date must be in ISO-8601 'basic format'. Got '${s.slice(0, 64)}'. See http://en.wikipedia.org/wiki/ISO_8601`);
  }
  return t;
}

export function formatAmzDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]|\.\d{3}/g, '');
}

/**
 * Verifies a request's SigV4 header against the configured keys. The scope must name this node's
 * `region` and one of `services`, the signing names the request may be scoped to (`swf` for
 * SimpleWorkflowService, `states` for AWSStepFunctions).
 */
export function verifySigV4(req: SignableRequest, keys: AccessKeys, opts: { now: number; region: string; services: readonly string[] }): VerifiedCaller {
  const authorization = req.headers.authorization?.[0];
  if (authorization === undefined || authorization.trim() === '') throw new SigV4Failure('MissingAuthenticationTokenException', 'Missing Authentication Token');
  const a = parseAuthorization(authorization.trim());
  const amzDate = req.headers['x-amz-date']?.[0]?.trim();
  if (!amzDate) throw new SigV4Failure('IncompleteSignatureException', "Authorization header requires existence of the 'X-Amz-Date' header.");
  const unsigned = unsignedHeader(req, a.signedHeaders);
  if (unsigned !== undefined) throw new SigV4Failure('InvalidSignatureException', `${unsigned} must be a 'SignedHeader' in the AWS Authorization.`);
  const sorted = [...a.signedHeaders].sort();
  if (sorted.some((h, i) => h !== a.signedHeaders[i] || h === sorted[i - 1])) {
    throw new SigV4Failure('IncompleteSignatureException', 'SignedHeaders must be sorted and without repeats.');
  }
  const at = parseAmzDate(amzDate);
  if (amzDate.slice(0, 8) !== a.date) {
    throw new SigV4Failure('InvalidSignatureException', `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${a.date}' != '${amzDate.slice(0, 8)}', from '${amzDate}'.`);
  }
  if (a.region !== opts.region) {
    throw new SigV4Failure('InvalidSignatureException', `Credential should be scoped to a valid region, not '${a.region.slice(0, 64)}'.`);
  }
  if (!opts.services.includes(a.service)) {
    throw new SigV4Failure('InvalidSignatureException', `Credential should be scoped to correct service: '${opts.services.join("' or '")}'.`);
  }
  const secret = keys.get(a.accessKeyId);
  if (secret === undefined) throw new SigV4Failure('UnrecognizedClientException', 'The security token included in the request is invalid.');
  if (at < opts.now - MAX_SKEW_MS) {
    throw new SigV4Failure('InvalidSignatureException', `Signature expired: ${amzDate} is now earlier than ${formatAmzDate(opts.now - MAX_SKEW_MS)} (${formatAmzDate(opts.now)} - 15 min.)`);
  }
  if (at > opts.now + MAX_SKEW_MS) {
    throw new SigV4Failure('InvalidSignatureException', `Signature not yet current: ${amzDate} is still later than ${formatAmzDate(opts.now + MAX_SKEW_MS)} (${formatAmzDate(opts.now)} + 15 min.)`);
  }
  const payloadHash = sha256hex(req.body);
  const claimed = req.headers['x-amz-content-sha256']?.[0]?.trim();
  if (claimed !== undefined && claimed !== payloadHash) {
    throw new SigV4Failure('InvalidSignatureException', "The provided 'x-amz-content-sha256' header does not match what was computed.");
  }
  const expected = computeSignature(req, a, amzDate, secret, payloadHash);
  if (!timingSafeEqual(Buffer.from(expected), Buffer.from(a.signature))) {
    throw new SigV4Failure('InvalidSignatureException', 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.');
  }
  return { accessKeyId: a.accessKeyId, region: a.region, service: a.service };
}

/**
 * Signs a request the way the AWS SDKs do (tools and tests that talk to the gateway without an SDK):
 * returns the headers to add (`x-amz-date`, `x-amz-content-sha256`, `authorization`). Every header
 * already in `req.headers` is signed.
 */
export function signSigV4(req: SignableRequest, creds: { accessKeyId: string; secretAccessKey: string },
  scope: { region: string; service: string; now?: number }): Record<string, string> {
  const amzDate = formatAmzDate(scope.now ?? Date.now());
  const payloadHash = sha256hex(req.body);
  const headers: Record<string, readonly string[] | undefined> = { ...req.headers, 'x-amz-date': [amzDate], 'x-amz-content-sha256': [payloadHash] };
  const signedHeaders = Object.keys(headers).filter((h) => headers[h] !== undefined).sort();
  const a = { date: amzDate.slice(0, 8), region: scope.region, service: scope.service, signedHeaders };
  const signature = computeSignature({ ...req, headers }, a, amzDate, creds.secretAccessKey, payloadHash);
  return {
    'x-amz-date': amzDate,
    'x-amz-content-sha256': payloadHash,
    authorization: `${ALGORITHM} Credential=${creds.accessKeyId}/${a.date}/${a.region}/${a.service}/aws4_request, SignedHeaders=${signedHeaders.join(';')}, Signature=${signature}`,
  };
}
