import { RegisterActivityTypeCommand, RegisterDomainCommand, RegisterWorkflowTypeCommand, SWFClient } from '@aws-sdk/client-swf';
import { signSigV4 } from '../../src/transport/sigv4.js';

export const REGION = 'us-east-1';
export const ANY_CREDENTIALS = { accessKeyId: 'AKIDANYTHING', secretAccessKey: 'anything' };

/** The AWS SDK's SWF client against the gateway; one attempt, so faults the SDK would retry surface at once. */
export function swfClient(port: number, credentials = ANY_CREDENTIALS): SWFClient {
  return new SWFClient({ endpoint: `http://127.0.0.1:${port}`, region: REGION, credentials, maxAttempts: 1 });
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface RawRequest {
  target?: string;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  method?: string;
  path?: string;
  /** Sign with these credentials (SigV4 header form, as the SDKs do). */
  sign?: { accessKeyId: string; secretAccessKey: string; service?: string; now?: number };
  signal?: AbortSignal;
}

/** One request with fetch: full control over headers and body (bad JSON, bad signatures, …). */
export async function rawCall(port: number, r: RawRequest): Promise<RawAnswer> {
  const body = typeof r.body === 'string' ? Buffer.from(r.body) : Buffer.from(r.body ?? []);
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    ...(r.target !== undefined ? { 'x-amz-target': r.target } : {}),
    ...r.headers,
  };
  if (r.sign) {
    const signed = { host: [`127.0.0.1:${port}`], ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), [v]])) };
    Object.assign(headers, signSigV4({ method: r.method ?? 'POST', path: r.path ?? '/', query: '', headers: signed, body },
      r.sign, { region: REGION, service: r.sign.service ?? 'swf', now: r.sign.now }));
  }
  const method = r.method ?? 'POST';
  const res = await fetch(`http://127.0.0.1:${port}${r.path ?? '/'}`, {
    method, headers, signal: r.signal, ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
  });
  const text = await res.text();
  let json: any;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

/** The fault a call ends with, as the SDK gives it: error.name and error.message. */
export async function failure(p: Promise<unknown>): Promise<{ name: string; message: string }> {
  try { await p; } catch (err) { const x = err as Error; return { name: x.name, message: x.message }; }
  throw new Error('expected the call to fail');
}

/**
 * Registers `domain` with a workflow type (decisions on `decide`, every default set) and an
 * activity type (tasks on `work`, every default set), through the SDK.
 */
export async function registerSwfDomain(swf: SWFClient, domain: string, wf: { name: string; version: string }, act: { name: string; version: string }): Promise<void> {
  await swf.send(new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }));
  await swf.send(new RegisterWorkflowTypeCommand({
    domain, ...wf, defaultTaskList: { name: 'decide' }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '30',
  }));
  await swf.send(new RegisterActivityTypeCommand({
    domain, ...act, defaultTaskList: { name: 'work' }, defaultTaskScheduleToStartTimeout: '300',
    defaultTaskStartToCloseTimeout: '60', defaultTaskScheduleToCloseTimeout: '360', defaultTaskHeartbeatTimeout: 'NONE',
  }));
}
