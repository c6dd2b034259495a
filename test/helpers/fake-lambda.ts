import type { ServerResponse } from 'node:http';
import { verifySigV4 } from '../../src/transport/sigv4.js';
import { sendJson, startLocalHttpServer, type LocalHttpServer, type SeenRequest } from './local-http-server.js';

/** The one key pair the fake accepts. */
export const FAKE_LAMBDA_KEY = { accessKeyId: 'AKIDLAMBDATEST', secretAccessKey: 'lambda-test-secret' } as const;
export const FAKE_LAMBDA_REGION = 'us-east-1';
const KEYS = new Map([[FAKE_LAMBDA_KEY.accessKeyId, FAKE_LAMBDA_KEY.secretAccessKey]]);

/**
 * Lambda's Invoke API on 127.0.0.1, as far as the tests need it: every request must carry a valid
 * SigV4 signature (checked with the gateway's own verifier). Functions: `echo` answers what it got,
 * `boom` fails with errorType BoomError, `crash` fails with no errorType, `throttled` (429),
 * `broken` (500), any other name is not found (404). `onEvent` sees what `echo` receives.
 */
export function startFakeLambda(onEvent: (name: string, event: unknown) => void = () => {}): Promise<LocalHttpServer> {
  return startLocalHttpServer((req, res) => fakeLambda(req, res, onEvent));
}

function fakeLambda(req: SeenRequest, res: ServerResponse, onEvent: (name: string, event: unknown) => void): void {
  const [path, query = ''] = req.url.split('?') as [string, string?];
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v : v === undefined ? undefined : [v]]));
  try {
    verifySigV4({ method: req.method, path, query, headers, body: req.body }, KEYS, { now: Date.now(), region: FAKE_LAMBDA_REGION, services: ['lambda'] });
  } catch (e) {
    return sendJson(res, 403, { message: (e as Error).message }, { 'x-amzn-ErrorType': `${(e as Error).name}:http://internal.amazon.com/coral/com.amazon.coral.service/` });
  }
  const m = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(path);
  if (req.method !== 'POST' || !m) return sendJson(res, 404, { message: 'not the Invoke API' });
  const name = decodeURIComponent(m[1]!).replace(/^.*function:/, '').split(':')[0];
  const ids = { 'x-amzn-RequestId': 'req-1', 'X-Amz-Executed-Version': '$LATEST' };
  const event: unknown = req.body.length ? JSON.parse(req.body.toString()) : null;
  onEvent(name!, event);
  if (req.headers['x-amz-invocation-type'] === 'Event') { res.writeHead(202, ids); res.end(); return; }
  switch (name) {
    case 'echo': return sendJson(res, 200, { got: event, qualifier: new URLSearchParams(query).get('Qualifier'), context: req.headers['x-amz-client-context'] ?? null },
      { ...ids, ...(req.headers['x-amz-log-type'] === 'Tail' ? { 'X-Amz-Log-Result': Buffer.from('START\nEND\n').toString('base64') } : {}) });
    case 'boom': return sendJson(res, 200, { errorType: 'BoomError', errorMessage: 'it broke', trace: [] }, { ...ids, 'X-Amz-Function-Error': 'Unhandled' });
    case 'crash': { res.writeHead(200, { ...ids, 'X-Amz-Function-Error': 'Unhandled' }); res.end('Task timed out after 3.00 seconds'); return; }
    case 'throttled': return sendJson(res, 429, { Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded', Type: 'User', message: 'Rate Exceeded.' }, { 'x-amzn-RequestId': 'req-2', 'x-amzn-ErrorType': 'TooManyRequestsException' });
    case 'broken': return sendJson(res, 500, { Type: 'Service', message: 'internal' }, { 'x-amzn-ErrorType': 'ServiceException' });
    default: return sendJson(res, 404, { Type: 'User', message: `Function not found: arn:aws:lambda:us-east-1:000000000000:function:${name}` }, { 'x-amzn-RequestId': 'req-3', 'x-amzn-ErrorType': 'ResourceNotFoundException:http://internal.amazon.com/coral/com.amazonaws.lambda/' });
  }
}
