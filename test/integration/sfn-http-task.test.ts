import { StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { sendJson, startLocalHttpServer, type LocalHttpServer } from '../helpers/local-http-server.js';
import { createMachine, fullHistory, sfnClient, waitClosed } from '../helpers/sfn-http.js';

const CONN = 'arn:aws:events:us-east-1:000000000000:connection/Orders/1';

let api: LocalHttpServer;
let unlisted: LocalHttpServer;
let engine: TestEngine;
let sfn: SFNClient;
/** Calls of /flaky per test key: it answers 503 twice, then 200. */
const flaky = new Map<string, number>();

beforeAll(async () => {
  api = await startLocalHttpServer((req, res) => {
    const url = new URL(req.url, api.origin);
    if (url.pathname === '/flaky') {
      const key = url.searchParams.get('key') ?? '';
      const n = (flaky.get(key) ?? 0) + 1;
      flaky.set(key, n);
      return n <= 2 ? sendJson(res, 503, { message: 'busy' }) : sendJson(res, 200, { attempt: n, key, apiKey: req.headers['x-api-key'] ?? null });
    }
    if (url.pathname === '/orders') return sendJson(res, 201, { id: 'o-1', received: JSON.parse(req.body.toString() || 'null') });
    sendJson(res, 404, { message: 'no such path' });
  });
  unlisted = await startLocalHttpServer((_req, res) => sendJson(res, 200, { reached: true }));
  engine = await startTestEngine({
    http: { port: 0, accessKeys: {} },
    node: {
      sfnHttp: {
        AllowedHosts: [api.origin],
        Connections: { [CONN]: { AuthorizationType: 'API_KEY', AuthParameters: { ApiKeyAuthParameters: { ApiKeyName: 'x-api-key', ApiKeyValue: 'from-config' } } } },
      },
    },
  });
  sfn = sfnClient(engine.node.http!.port);
}, 30_000);

afterAll(async () => {
  sfn?.destroy();
  await engine?.stop();
  await Promise.all([api?.stop(), unlisted?.stop()]);
});

const task = (endpoint: string, extra: object = {}) => ({
  Type: 'Task', Resource: 'arn:aws:states:::http:invoke',
  Parameters: { ApiEndpoint: endpoint, Method: 'GET', Authentication: { ConnectionArn: CONN } }, ...extra,
});

async function run(definition: object, input: object = {}) {
  const arn = await createMachine(sfn, definition);
  const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: arn, input: JSON.stringify(input) }));
  const d = await waitClosed(sfn, executionArn!, 30_000);
  return { d, executionArn: executionArn! };
}

describe('the HTTP task through @aws-sdk/client-sfn', () => {
  it('retries States.Http.StatusCode.503 and shapes the response with ResultSelector', async () => {
    const { d, executionArn } = await run({
      StartAt: 'Call',
      States: {
        Call: task(`${api.origin}/flaky?key=retry`, {
          Retry: [{ ErrorEquals: ['States.Http.StatusCode.503'], IntervalSeconds: 1, MaxAttempts: 3, BackoffRate: 1 }],
          ResultSelector: { 'status.$': '$.StatusCode', 'text.$': '$.StatusText', 'body.$': '$.ResponseBody', 'type.$': "$.Headers['content-type'][0]" },
          End: true,
        }),
      },
    });
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toEqual({ status: 200, text: 'OK', body: { attempt: 3, key: 'retry', apiKey: 'from-config' }, type: 'application/json' });
    const events = await fullHistory(sfn, executionArn);
    const failed = events.filter((e) => e.type === 'TaskFailed');
    expect(failed).toHaveLength(2);
    expect(failed[0]!.taskFailedEventDetails).toMatchObject({ resourceType: 'http', resource: 'invoke', error: 'States.Http.StatusCode.503' });
    expect(JSON.parse(failed[0]!.taskFailedEventDetails!.cause!)).toMatchObject({ StatusCode: 503, ResponseBody: { message: 'busy' } });
    expect(events.filter((e) => e.type === 'TaskScheduled')[0]!.taskScheduledEventDetails).toMatchObject({ resourceType: 'http', resource: 'invoke' });
  });

  it('posts the body the state builds', async () => {
    const { d } = await run({
      StartAt: 'Post',
      States: { Post: task(`${api.origin}/orders`, { Parameters: { ApiEndpoint: `${api.origin}/orders`, Method: 'POST', Authentication: { ConnectionArn: CONN }, 'RequestBody.$': '$.order' }, OutputPath: '$.ResponseBody', End: true }) },
    }, { order: { sku: 'A-1', qty: 2 } });
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toEqual({ id: 'o-1', received: { sku: 'A-1', qty: 2 } });
  });

  it('refuses an unlisted host without calling it: States.Permissions, catchable', async () => {
    const before = unlisted.connections;
    const { d } = await run({
      StartAt: 'Call',
      States: {
        Call: task(`${unlisted.origin}/anything`, { Catch: [{ ErrorEquals: ['States.Permissions'], ResultPath: '$.refused', Next: 'Refused' }], End: true }),
        Refused: { Type: 'Pass', End: true },
      },
    });
    expect(d.status).toBe('SUCCEEDED');
    const out = JSON.parse(d.output!) as { refused: { Error: string; Cause: string } };
    expect(out.refused.Error).toBe('States.Permissions');
    expect(out.refused.Cause).toContain('no request was sent');
    expect(unlisted.connections).toBe(before);
  });

  it('fails the execution with the status error when nothing catches it', async () => {
    const { d } = await run({ StartAt: 'Call', States: { Call: task(`${api.origin}/missing`, { End: true }) } });
    expect(d.status).toBe('FAILED');
    expect(d.error).toBe('States.Http.StatusCode.404');
    expect(JSON.parse(d.cause!)).toMatchObject({ StatusCode: 404, StatusText: 'Not Found' });
  });
});
