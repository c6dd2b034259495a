import { readFileSync } from 'node:fs';
import { parseHostPattern, type HostPattern } from './http-hosts.js';

/**
 * What the HTTP task (`arn:aws:states:::http:invoke`) may call and with which credentials: the
 * operator's file (AF_SFN_HTTP_CONFIG), never the definition. Connections take the shape of
 * EventBridge's CreateConnection input (AuthorizationType, AuthParameters), keyed by ConnectionArn,
 * plus the hosts each may be sent to:
 * ```json
 * { "AllowedHosts": ["https://api.example.com", "http://127.0.0.1:*"],
 *   "Connections": { "arn:aws:events:us-east-1:000000000000:connection/Example/1": {
 *     "AuthorizationType": "API_KEY",
 *     "AuthParameters": { "ApiKeyAuthParameters": { "ApiKeyName": "x-api-key", "ApiKeyValue": "…" } },
 *     "AllowedHosts": ["https://api.example.com"] } } }
 * ```
 * A connection with its own AllowedHosts is sent only there (the top-level list does not widen it);
 * one without is sent to the top-level hosts. An empty file, or none, allows no host at all.
 */
export interface HttpTaskConfig {
  readonly allowedHosts: readonly HostPattern[];
  readonly connections: ReadonlyMap<string, HttpConnection>;
}

export type HttpAuth =
  | { readonly type: 'API_KEY'; readonly name: string; readonly value: string }
  | { readonly type: 'BASIC'; readonly username: string; readonly password: string }
  | { readonly type: 'OAUTH_CLIENT_CREDENTIALS'; readonly tokenUrl: URL; readonly method: 'GET' | 'POST' | 'PUT';
    readonly clientId: string; readonly clientSecret: string; readonly params: HttpParams };

/** Header, query string and body parameters of a connection (EventBridge's InvocationHttpParameters). */
export interface HttpParams {
  readonly headers: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly body: Readonly<Record<string, string>>;
}

export interface HttpConnection {
  readonly arn: string;
  readonly auth: HttpAuth;
  readonly params: HttpParams;
  /** undefined: the top-level AllowedHosts. */
  readonly allowedHosts: readonly HostPattern[] | undefined;
}

/** The configuration with no file: no host allowed, no connection known. */
export const NO_HTTP_TASK_CONFIG: HttpTaskConfig = Object.freeze({ allowedHosts: Object.freeze([]), connections: new Map() });

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function obj(v: unknown, where: string, optional = false): Json {
  if (v === undefined && optional) return {};
  if (!isObject(v)) throw new Error(`${where} must be an object`);
  return v;
}

function str(v: unknown, where: string): string {
  if (typeof v !== 'string' || v === '') throw new Error(`${where} must be a non-empty string`);
  return v;
}

function hosts(v: unknown, where: string): HostPattern[] {
  if (!Array.isArray(v)) throw new Error(`${where} must be an array of host patterns`);
  return v.map((p, i) => parseHostPattern(str(p, `${where}[${i}]`), `${where}[${i}]`));
}

/** EventBridge's `[{ Key, Value }]` parameter lists, as a record. */
function pairs(v: unknown, where: string): Record<string, string> {
  if (v === undefined) return {};
  if (!Array.isArray(v)) throw new Error(`${where} must be an array of { "Key", "Value" }`);
  const out: Record<string, string> = {};
  v.forEach((p, i) => {
    const o = obj(p, `${where}[${i}]`);
    out[str(o.Key, `${where}[${i}].Key`)] = typeof o.Value === 'string' ? o.Value : String(o.Value ?? '');
  });
  return out;
}

function params(v: unknown, where: string): HttpParams {
  const o = obj(v, where, true);
  return Object.freeze({
    headers: pairs(o.HeaderParameters, `${where}.HeaderParameters`),
    query: pairs(o.QueryStringParameters, `${where}.QueryStringParameters`),
    body: pairs(o.BodyParameters, `${where}.BodyParameters`),
  });
}

function auth(type: unknown, p: Json, where: string): HttpAuth {
  switch (type) {
    case 'API_KEY': {
      const k = obj(p.ApiKeyAuthParameters, `${where}.ApiKeyAuthParameters`);
      return { type, name: str(k.ApiKeyName, `${where}.ApiKeyAuthParameters.ApiKeyName`), value: str(k.ApiKeyValue, `${where}.ApiKeyAuthParameters.ApiKeyValue`) };
    }
    case 'BASIC': {
      const b = obj(p.BasicAuthParameters, `${where}.BasicAuthParameters`);
      return { type, username: str(b.Username, `${where}.BasicAuthParameters.Username`), password: str(b.Password, `${where}.BasicAuthParameters.Password`) };
    }
    case 'OAUTH_CLIENT_CREDENTIALS': {
      const o = obj(p.OAuthParameters, `${where}.OAuthParameters`);
      const c = obj(o.ClientParameters, `${where}.OAuthParameters.ClientParameters`);
      const tokenUrl = new URL(str(o.AuthorizationEndpoint, `${where}.OAuthParameters.AuthorizationEndpoint`));
      if (tokenUrl.protocol !== 'https:' && tokenUrl.protocol !== 'http:') throw new Error(`${where}.OAuthParameters.AuthorizationEndpoint must be an http(s) URL`);
      const method = o.HttpMethod ?? 'POST';
      if (method !== 'GET' && method !== 'POST' && method !== 'PUT') throw new Error(`${where}.OAuthParameters.HttpMethod must be GET, POST or PUT`);
      return {
        type, tokenUrl, method,
        clientId: str(c.ClientID, `${where}.OAuthParameters.ClientParameters.ClientID`),
        clientSecret: str(c.ClientSecret, `${where}.OAuthParameters.ClientParameters.ClientSecret`),
        params: params(o.OAuthHttpParameters, `${where}.OAuthParameters.OAuthHttpParameters`),
      };
    }
    default:
      throw new Error(`${where}: AuthorizationType must be API_KEY, BASIC or OAUTH_CLIENT_CREDENTIALS`);
  }
}

const CONNECTION_ARN = /^arn:aws[a-z-]*:events:[a-z0-9-]+:\d{12}:connection\/[\w.-]{1,64}\/[\w-]{1,64}$/;

/** Checks a parsed configuration file; throws with the path of the first bad member. */
export function parseHttpTaskConfig(json: unknown, where = 'AF_SFN_HTTP_CONFIG'): HttpTaskConfig {
  const root = obj(json, where);
  const connections = new Map<string, HttpConnection>();
  for (const [arn, raw] of Object.entries(obj(root.Connections, `${where}.Connections`, true))) {
    const at = `${where}.Connections["${arn}"]`;
    if (!CONNECTION_ARN.test(arn)) throw new Error(`${at}: not a connection ARN (arn:aws:events:<region>:<account>:connection/<name>/<id>)`);
    const c = obj(raw, at);
    const p = obj(c.AuthParameters, `${at}.AuthParameters`);
    connections.set(arn, Object.freeze({
      arn,
      auth: Object.freeze(auth(c.AuthorizationType, p, `${at}.AuthParameters`)),
      params: params(p.InvocationHttpParameters, `${at}.AuthParameters.InvocationHttpParameters`),
      allowedHosts: c.AllowedHosts === undefined ? undefined : Object.freeze(hosts(c.AllowedHosts, `${at}.AllowedHosts`)),
    }));
  }
  const allowedHosts = root.AllowedHosts === undefined ? [] : hosts(root.AllowedHosts, `${where}.AllowedHosts`);
  return Object.freeze({ allowedHosts: Object.freeze(allowedHosts), connections });
}

/** Reads and checks the file AF_SFN_HTTP_CONFIG names. */
export function loadHttpTaskConfig(path: string): HttpTaskConfig {
  let text: string;
  try { text = readFileSync(path, 'utf8'); } catch (e) { throw new Error(`AF_SFN_HTTP_CONFIG: cannot read ${path}: ${(e as Error).message}`); }
  let json: unknown;
  try { json = JSON.parse(text); } catch (e) { throw new Error(`AF_SFN_HTTP_CONFIG: ${path} is not JSON: ${(e as Error).message}`); }
  return parseHttpTaskConfig(json, `AF_SFN_HTTP_CONFIG (${path})`);
}
