/**
 * The HTTP task's Parameters (or Arguments), read and checked: ApiEndpoint, Method,
 * Authentication.ConnectionArn, Headers, QueryParameters, Transform and RequestBody, as AWS's
 * "Call HTTPS APIs" page names them.
 */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export const ARRAY_FORMATS = ['INDICES', 'REPEAT', 'COMMAS', 'BRACKETS'] as const;
export type ArrayFormat = (typeof ARRAY_FORMATS)[number];

/**
 * Headers a definition may not set (AWS's list for the HTTP task): the connection sets
 * Authorization, the engine sets the transport's own (Host, Content-Length, …).
 */
const REFUSED_HEADERS = new Set([
  'a-im', 'accept-charset', 'accept-datetime', 'accept-encoding', 'authorization', 'cache-control', 'connection',
  'content-encoding', 'content-length', 'content-md5', 'date', 'expect', 'forwarded', 'from', 'host', 'http2-settings',
  'if-match', 'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since', 'max-forwards', 'origin', 'pragma',
  'proxy-authorization', 'referer', 'server', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'via', 'warning',
]);
const REFUSED_PREFIXES = ['x-forwarded-', 'x-amz-', 'x-amzn-'];
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Why a header name may not be sent, or undefined when it may. */
export function refusedHeader(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (!TOKEN.test(name)) return `'${name}' is not a valid header name`;
  if (REFUSED_HEADERS.has(lower) || REFUSED_PREFIXES.some((p) => lower.startsWith(p))) return `The header '${name}' is not supported by the HTTP Task`;
  return undefined;
}

export interface HttpTaskRequest {
  readonly endpoint: URL;
  readonly method: HttpMethod;
  readonly connectionArn: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Name → values (a list repeats the key). */
  readonly query: ReadonlyArray<readonly [string, string]>;
  readonly body: unknown;
  readonly urlEncoded: boolean;
  readonly arrayFormat: ArrayFormat;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const scalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** A problem with the parameters, worded for the task's cause. */
export class HttpParameterProblem extends Error {}
const problem = (m: string): never => { throw new HttpParameterProblem(m); };

function readHeaders(v: unknown): Record<string, string> {
  if (v === undefined) return {};
  if (!isObject(v)) return problem('Headers must be a JSON object');
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    const why = refusedHeader(k);
    if (why) problem(why);
    if (!scalar(val)) problem(`The value of the header '${k}' must be a string, number or boolean`);
    const text = String(val);
    // What HTTP allows in a field value (and node:http sends): no control characters but tab.
    if (/[^\t\x20-\x7e\x80-\u00ff]/.test(text)) problem(`The value of the header '${k}' holds a character a header may not carry`);
    out[k] = text;
  }
  return out;
}

function readQuery(v: unknown): Array<[string, string]> {
  if (v === undefined) return [];
  if (!isObject(v)) return problem('QueryParameters must be a JSON object');
  const out: Array<[string, string]> = [];
  for (const [k, val] of Object.entries(v)) {
    for (const item of Array.isArray(val) ? val : [val]) {
      if (!scalar(item)) problem(`The query parameter '${k}' must be a string, number, boolean or a list of them`);
      out.push([k, String(item)]);
    }
  }
  return out;
}

function readTransform(v: unknown): { urlEncoded: boolean; arrayFormat: ArrayFormat } {
  if (v === undefined) return { urlEncoded: false, arrayFormat: 'INDICES' };
  if (!isObject(v)) return problem('Transform must be a JSON object');
  const enc = v.RequestBodyEncoding ?? 'NONE';
  if (enc !== 'NONE' && enc !== 'URL_ENCODED') problem(`Transform.RequestBodyEncoding must be NONE or URL_ENCODED, got ${JSON.stringify(enc)}`);
  const opts = v.RequestEncodingOptions ?? {};
  if (!isObject(opts)) problem('Transform.RequestEncodingOptions must be a JSON object');
  const fmt = (opts as Json).ArrayFormat ?? 'INDICES';
  if (!ARRAY_FORMATS.includes(fmt as ArrayFormat)) problem(`Transform.RequestEncodingOptions.ArrayFormat must be one of ${ARRAY_FORMATS.join(', ')}, got ${JSON.stringify(fmt)}`);
  return { urlEncoded: enc === 'URL_ENCODED', arrayFormat: fmt as ArrayFormat };
}

/** Reads the effective parameters of one invocation; throws HttpParameterProblem. */
export function readHttpParameters(p: unknown): HttpTaskRequest {
  if (!isObject(p)) return problem('The HTTP Task parameters must be a JSON object');
  const unknown = Object.keys(p).filter((k) => !['ApiEndpoint', 'Method', 'Authentication', 'Headers', 'QueryParameters', 'Transform', 'RequestBody'].includes(k));
  if (unknown.length) problem(`The field '${unknown[0]}' is not supported by the HTTP Task`);
  if (typeof p.ApiEndpoint !== 'string') return problem("The field 'ApiEndpoint' is required and must be a string");
  let endpoint: URL;
  try { endpoint = new URL(p.ApiEndpoint); } catch { return problem(`ApiEndpoint '${p.ApiEndpoint.slice(0, 200)}' is not a valid URL`); }
  if (endpoint.protocol !== 'https:' && endpoint.protocol !== 'http:') problem('ApiEndpoint must be an https:// (or http://) URL');
  // Credentials come from the connection, never from the definition.
  if (endpoint.username !== '' || endpoint.password !== '') problem('ApiEndpoint must not carry user information; credentials come from the connection');
  if (!HTTP_METHODS.includes(p.Method as HttpMethod)) problem(`The field 'Method' must be one of ${HTTP_METHODS.join(', ')}`);
  const auth = p.Authentication;
  if (!isObject(auth) || typeof auth.ConnectionArn !== 'string' || auth.ConnectionArn === '') problem("The field 'Authentication.ConnectionArn' is required");
  const transform = readTransform(p.Transform);
  if (transform.urlEncoded && p.RequestBody !== undefined && !isObject(p.RequestBody)) problem('A RequestBody encoded as URL_ENCODED must be a JSON object');
  return {
    endpoint, method: p.Method as HttpMethod, connectionArn: (auth as Json).ConnectionArn as string,
    headers: readHeaders(p.Headers), query: readQuery(p.QueryParameters), body: p.RequestBody, ...transform,
  };
}

/**
 * Checks the parameters a definition writes literally (a field given by path or JSONata is known
 * only at run time); answers the first problem, or undefined.
 */
export function checkHttpParameters(p: unknown): string | undefined {
  if (!isObject(p)) return undefined;
  const has = (k: string) => k in p || `${k}.$` in p;
  for (const k of ['ApiEndpoint', 'Method', 'Authentication']) if (!has(k)) return `The field '${k}' is required but was missing`;
  if (typeof p.Method === 'string' && !/^\{%[\s\S]*%\}$/.test(p.Method) && !HTTP_METHODS.includes(p.Method as HttpMethod)) {
    return `The value of the field 'Method' must be one of ${HTTP_METHODS.join(', ')}`;
  }
  if (isObject(p.Authentication) && !('ConnectionArn' in p.Authentication || 'ConnectionArn.$' in p.Authentication)) {
    return "The field 'Authentication.ConnectionArn' is required but was missing";
  }
  if (isObject(p.Headers)) {
    for (const k of Object.keys(p.Headers)) {
      const why = refusedHeader(k.endsWith('.$') ? k.slice(0, -2) : k);
      if (why) return why;
    }
  }
  if (isObject(p.Transform)) {
    try { readTransform(p.Transform); } catch (e) { return (e as Error).message; }
  }
  return undefined;
}
