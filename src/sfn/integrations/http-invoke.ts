import type { Integration, IntegrationCall, IntegrationResult } from './integration.js';
import { encodeBody } from './http-body.js';
import { NO_HTTP_TASK_CONFIG, type HttpConnection, type HttpTaskConfig } from './http-config.js';
import { hostAllowed, originOf } from './http-hosts.js';
import { OAuthTokens } from './http-oauth.js';
import { checkHttpParameters, HttpParameterProblem, readHttpParameters, type HttpTaskRequest } from './http-parameters.js';
import { sendHttp, type HttpResponse } from './http-send.js';

/** AWS's HTTP task gives up on an endpoint after 60 s (States.Http.Socket). */
export const HTTP_TASK_TIMEOUT_MS = 60_000;
/** AWS's payload quota: a larger response fails the task with States.DataLimitExceeded. */
export const MAX_HTTP_RESPONSE_BYTES = 256 * 1024;
const MAX_REDIRECTS = 5;

const fail = (error: string, cause: string): IntegrationResult => ({ ok: false, error, cause });

/** AWS's output of an HTTP task: ResponseBody parsed when the response is JSON. */
export function httpTaskOutput(r: HttpResponse): { Headers: Record<string, string[]>; ResponseBody: unknown; StatusCode: number; StatusText: string } {
  const text = r.body.toString('utf8');
  const type = (r.headers['content-type']?.[0] ?? '').split(';')[0]!.trim().toLowerCase();
  let body: unknown = text;
  if ((type === 'application/json' || type.endsWith('+json')) && text !== '') {
    try { body = JSON.parse(text); } catch { body = text; }
  }
  return { Headers: r.headers, ResponseBody: body, StatusCode: r.status, StatusText: r.statusText };
}

/** `us-east-1` from `arn:aws:states:us-east-1:…`. */
const regionOf = (arn: string): string => arn.split(':')[3] ?? '';

/** `arn:aws:states:::http:invoke`: calls the hosts and sends the credentials the engine's configuration names. */
export class HttpInvokeIntegration implements Integration {
  readonly resourceType = 'http';
  readonly actions = { invoke: ['request'] } as const;
  private readonly tokens = new OAuthTokens();

  constructor(private readonly config: HttpTaskConfig = NO_HTTP_TASK_CONFIG) {}

  check(action: string, parameters: unknown): string | undefined {
    return action === 'invoke' ? checkHttpParameters(parameters) : undefined;
  }

  async invoke(call: IntegrationCall): Promise<IntegrationResult> {
    let req: HttpTaskRequest;
    try { req = readHttpParameters(call.parameters); } catch (e) {
      if (e instanceof HttpParameterProblem) return fail('States.Runtime', e.message);
      throw e;
    }
    const conn = this.config.connections.get(req.connectionArn);
    if (!conn) return fail('Events.ConnectionResource.ResourceNotFound', `The connection '${req.connectionArn}' is not configured on this engine (AF_SFN_HTTP_CONFIG)`);
    const patterns = conn.allowedHosts ?? this.config.allowedHosts;
    const allowed = (u: URL) => hostAllowed(u, patterns);
    if (!allowed(req.endpoint)) return fail('States.Permissions', notAllowed(req.endpoint, conn));
    const left = call.deadline === undefined ? Infinity : call.deadline - Date.now();
    const timeoutMs = Math.max(0, Math.min(HTTP_TASK_TIMEOUT_MS, left));
    const byDeadline = left < HTTP_TASK_TIMEOUT_MS;

    const headers: Record<string, string> = { ...req.headers, ...conn.params.headers };
    const secretHeaders: string[] = [];
    try {
      const auth = conn.auth;
      if (auth.type === 'API_KEY') { headers[auth.name] = auth.value; secretHeaders.push(auth.name.toLowerCase()); } else {
        const value = auth.type === 'BASIC'
          ? `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`
          : `Bearer ${await this.tokens.token(conn.arn, auth, call.signal, timeoutMs)}`;
        headers.Authorization = value;
        secretHeaders.push('authorization');
      }
    } catch (e) {
      return fail('Events.ConnectionResource.InvalidConnectionState', (e as Error).message);
    }
    let body;
    try { body = encodeBody(req.body, conn.params.body, req.urlEncoded, req.arrayFormat); } catch (e) { return fail('States.Runtime', (e as Error).message); }
    if (body) {
      const given = Object.keys(headers).find((k) => k.toLowerCase() === 'content-type');
      if (req.urlEncoded && given !== undefined) delete headers[given];
      if (req.urlEncoded || given === undefined) headers['Content-Type'] = body.contentType;
    }
    headers['User-Agent'] = `Amazon|StepFunctions|HttpInvoke|${regionOf(call.executionArn)}`;

    const url = new URL(req.endpoint);
    for (const [k, v] of req.query) url.searchParams.append(k, v);
    for (const [k, v] of Object.entries(conn.params.query)) url.searchParams.set(k, v);

    const r = await sendHttp(req.method, url, headers, body?.bytes, {
      allowed, timeoutMs, signal: call.signal, maxBodyBytes: MAX_HTTP_RESPONSE_BYTES, maxRedirects: MAX_REDIRECTS, secretHeaders,
    });
    switch (r.kind) {
      case 'refused': return fail('States.Permissions', `A redirect to ${originOf(r.url)} was not followed: ${notAllowed(r.url, conn)}`);
      case 'too-large': return fail('States.DataLimitExceeded', `The state/task '${call.stateName}' returned a result with a size exceeding the maximum number of bytes service limit.`);
      case 'socket': return fail('States.Http.Socket', `The HTTP request to ${originOf(url)} failed: ${r.message}`);
      case 'timeout': return byDeadline
        ? fail('States.Timeout', 'The task timed out before the HTTP response came.')
        : fail('States.Http.Socket', `The HTTP request to ${originOf(url)} timed out after ${HTTP_TASK_TIMEOUT_MS / 1000} seconds.`);
      case 'aborted': return fail('States.TaskFailed', 'The task ended before the HTTP response came.');
      case 'response': {
        const output = httpTaskOutput(r.response);
        if (output.StatusCode >= 200 && output.StatusCode <= 299) return { ok: true, output };
        return fail(`States.Http.StatusCode.${output.StatusCode}`, JSON.stringify(output));
      }
    }
  }
}

function notAllowed(url: URL, conn: HttpConnection): string {
  return `The endpoint ${originOf(url)} is not among the hosts ${conn.allowedHosts ? `the connection '${conn.arn}'` : 'the HTTP Task'} may call on this engine (AllowedHosts in AF_SFN_HTTP_CONFIG); no request was sent.`;
}
