import {
  DefaultUndefinedFault, DeleteActivityTypeCommand, DeprecateActivityTypeCommand, DeprecateDomainCommand, DescribeDomainCommand,
  DescribeWorkflowExecutionCommand, DomainAlreadyExistsFault, DomainDeprecatedFault, GetWorkflowExecutionHistoryCommand,
  LimitExceededFault, paginateGetWorkflowExecutionHistory, paginatePollForDecisionTask, PollForActivityTaskCommand,
  PollForDecisionTaskCommand, RegisterActivityTypeCommand, RegisterDomainCommand, RegisterWorkflowTypeCommand,
  RespondDecisionTaskCompletedCommand, StartWorkflowExecutionCommand, SWFServiceException, TypeAlreadyExistsFault,
  TypeDeprecatedFault, TypeNotDeprecatedFault, UnknownResourceFault, WorkflowExecutionAlreadyStartedFault,
  type HistoryEvent, type SWFClient,
} from '@aws-sdk/client-swf';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { rawCall, swfClient, type RawAnswer } from '../helpers/swf-http.js';
import { ACTIVITIES, DECISIONS, deciderLoop, ORDER_TYPE, registerOrder, STEPS, workerLoop } from '../helpers/swf-sdk-order.js';
import { until } from '../helpers/until.js';

let e: TestEngine;
let swf: SWFClient;
let port: number;
beforeAll(async () => {
  e = await startTestEngine({ http: { port: 0, accessKeys: {} } });
  port = e.node.http!.port;
  swf = swfClient(port);
});
afterAll(async () => {
  swf?.destroy();
  await e?.stop();
});

const types = (events: HistoryEvent[]) => events.map((x) => x.eventType);

async function history(domain: string, execution: { workflowId: string; runId: string }): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  for await (const page of paginateGetWorkflowExecutionHistory({ client: swf }, { domain, execution })) events.push(...page.events ?? []);
  return events;
}

async function rejection(p: Promise<unknown>): Promise<any> {
  try { await p; } catch (err) { return err; }
  throw new Error('expected the call to fail');
}

/** Every error answer: the status, JSON `__type` + `message`, our content type and request id, no x-amzn-errortype. */
function expectAwsError(a: RawAnswer, status: number, type: string): void {
  expect({ status: a.status, type: a.json?.__type }).toEqual({ status, type });
  expect(typeof a.json.message).toBe('string');
  expect(a.headers.get('content-type')).toBe('application/x-amz-json-1.0');
  expect(a.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
  expect(a.headers.get('x-amzn-errortype')).toBeNull();
}

describe('the AWS SDK for JavaScript against the HTTP gateway', () => {
  it('runs the whole order-fulfilment workflow with an SDK decider and worker', async () => {
    const domain = uniqueDomain('http-order');
    await registerOrder(swf, domain);
    const stop = new AbortController();
    const loops = Promise.all([deciderLoop(swf, domain, stop.signal), workerLoop(swf, domain, stop.signal)]);
    try {
      const { runId } = await swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'order-1', workflowType: ORDER_TYPE, input: '{"orderId":1}' }));
      const execution = { workflowId: 'order-1', runId: runId! };
      await until(async () => (await swf.send(new DescribeWorkflowExecutionCommand({ domain, execution }))).executionInfo?.executionStatus === 'CLOSED', { timeoutMs: 15_000 });
      const events = await history(domain, execution);
      const perStep = ['DecisionTaskScheduled', 'DecisionTaskStarted', 'DecisionTaskCompleted', 'ActivityTaskScheduled', 'ActivityTaskStarted', 'ActivityTaskCompleted'];
      expect(types(events)).toEqual(['WorkflowExecutionStarted', ...STEPS.flatMap(() => perStep), 'DecisionTaskScheduled', 'DecisionTaskStarted', 'DecisionTaskCompleted', 'WorkflowExecutionCompleted']);
      expect(events.map((x) => x.eventId)).toEqual(Array.from({ length: 29 }, (_, i) => i + 1));
      expect(events[0]!.eventTimestamp).toBeInstanceOf(Date);
      expect(JSON.parse(events[28]!.workflowExecutionCompletedEventAttributes!.result!)).toEqual({ orderId: 1, VerifyOrder: 'ok', ChargeCreditCard: 'ok', ShipOrder: 'ok', RecordCompletion: 'ok' });
      expect(events[2]!.decisionTaskStartedEventAttributes!.identity).toBe('sdk-decider');
      const d = await swf.send(new DescribeWorkflowExecutionCommand({ domain, execution }));
      expect(d.executionInfo!.closeStatus).toBe('COMPLETED');
      expect(d.executionInfo!.startTimestamp).toBeInstanceOf(Date);

      // History paging: maximumPageSize pages forward and in reverse.
      const sizes: number[] = [];
      const paged: number[] = [];
      for await (const page of paginateGetWorkflowExecutionHistory({ client: swf, pageSize: 5 }, { domain, execution })) {
        sizes.push(page.events!.length);
        paged.push(...page.events!.map((x) => x.eventId!));
      }
      expect(sizes).toEqual([5, 5, 5, 5, 5, 4]);
      expect(paged).toEqual(events.map((x) => x.eventId));
      const last = await swf.send(new GetWorkflowExecutionHistoryCommand({ domain, execution, maximumPageSize: 2, reverseOrder: true }));
      expect(last.events!.map((x) => x.eventId)).toEqual([29, 28]);
      expect(last.nextPageToken).toBeTruthy();
    } finally {
      stop.abort();
      await loops;
    }
  });

  it('gives a held poll\'s task to the next poller when the client aborts it', async () => {
    const domain = uniqueDomain('http-abort');
    await registerOrder(swf, domain);
    const gateway = e.node.http!;
    // Polls aborted by earlier tests may still sit in their task lists: count from here.
    const before = gateway.inflightRequests;
    const gone = new AbortController();
    const held = rejection(swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: DECISIONS }, identity: 'gone' }), { abortSignal: gone.signal }));
    try {
      await until(() => gateway.inflightRequests === before + 1, { message: 'the poll is held' });
    } finally {
      gone.abort();
    }
    expect(await held).toMatchObject({ name: 'AbortError' });

    const { runId } = await swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'w', workflowType: ORDER_TYPE }));
    // The dead poll is offered the task first, sees its client is gone and hands the task back.
    await until(() => gateway.inflightRequests === before, { message: 'the aborted poll ended' });
    const task = await swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: DECISIONS }, identity: 'next' }));
    expect(task.taskToken).toBeTruthy();
    expect(task.workflowExecution).toEqual({ workflowId: 'w', runId });
    const events = await history(domain, { workflowId: 'w', runId: runId! });
    expect(types(events)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled', 'DecisionTaskStarted']);
    expect(events[2]!.decisionTaskStartedEventAttributes!.identity).toBe('next');
  });

  it('answers a stale decision token (the task timed out) with the SDK\'s UnknownResourceFault', async () => {
    const domain = uniqueDomain('http-stale');
    await swf.send(new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }));
    await swf.send(new RegisterWorkflowTypeCommand({
      domain, name: 'Quick', version: '1', defaultTaskList: { name: 'quick' }, defaultChildPolicy: 'TERMINATE',
      defaultExecutionStartToCloseTimeout: '600', defaultTaskStartToCloseTimeout: '1',
    }));
    const { runId } = await swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'q', workflowType: { name: 'Quick', version: '1' } }));
    const task = await swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: 'quick' } }));
    expect(task.startedEventId).toBe(3);
    await until(async () => types(await history(domain, { workflowId: 'q', runId: runId! })).includes('DecisionTaskTimedOut'), { timeoutMs: 5000 });
    const err = await rejection(swf.send(new RespondDecisionTaskCompletedCommand({ taskToken: task.taskToken, decisions: [] })));
    expect(err).toBeInstanceOf(UnknownResourceFault);
    expect(err.$metadata.httpStatusCode).toBe(400);
    expect(err.$fault).toBe('client');
  });

  it('pages a decision task\'s history with nextPageToken', async () => {
    const domain = uniqueDomain('http-dpage');
    await registerOrder(swf, domain);
    const { runId } = await swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'p', workflowType: ORDER_TYPE }));
    const pages = [];
    for await (const page of paginatePollForDecisionTask({ client: swf, pageSize: 1 }, { domain, taskList: { name: DECISIONS }, identity: 'pager' })) pages.push(page);
    expect(pages.map((p) => types(p.events!))).toEqual([['WorkflowExecutionStarted'], ['DecisionTaskScheduled'], ['DecisionTaskStarted']]);
    expect(new Set(pages.map((p) => p.taskToken)).size).toBe(1);
    expect(pages.map((p) => p.startedEventId)).toEqual([3, 3, 3]);
    await swf.send(new RespondDecisionTaskCompletedCommand({
      taskToken: pages[0]!.taskToken, decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: {} }],
    }));
    expect(types(await history(domain, { workflowId: 'p', runId: runId! })).at(-1)).toBe('WorkflowExecutionCompleted');
  });

  it('surfaces every fault of the service layer as the SDK\'s exception class (or name, when the model has none)', async () => {
    const domain = uniqueDomain('http-faults');
    await registerOrder(swf, domain);
    const registerDomain = (name: string) => swf.send(new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '1' }));
    const activity = { name: 'Extra', version: '1' };
    const validation = await rejection(registerDomain('bad:name'));
    expect(validation).toBeInstanceOf(SWFServiceException);
    expect(validation.name).toBe('ValidationException');
    expect(validation.message).toMatch(/must not contain a colon/);
    expect(await rejection(swf.send(new DescribeDomainCommand({ name: 'no-such-domain' })))).toBeInstanceOf(UnknownResourceFault);
    expect(await rejection(registerDomain(domain))).toBeInstanceOf(DomainAlreadyExistsFault);
    await swf.send(new RegisterActivityTypeCommand({ domain, ...activity }));
    expect(await rejection(swf.send(new RegisterActivityTypeCommand({ domain, ...activity })))).toBeInstanceOf(TypeAlreadyExistsFault);
    expect(await rejection(swf.send(new DeleteActivityTypeCommand({ domain, activityType: activity })))).toBeInstanceOf(TypeNotDeprecatedFault);
    await swf.send(new DeprecateActivityTypeCommand({ domain, activityType: activity }));
    expect(await rejection(swf.send(new DeprecateActivityTypeCommand({ domain, activityType: activity })))).toBeInstanceOf(TypeDeprecatedFault);
    await swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'once', workflowType: ORDER_TYPE }));
    expect(await rejection(swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'once', workflowType: ORDER_TYPE }))))
      .toBeInstanceOf(WorkflowExecutionAlreadyStartedFault);
    await swf.send(new RegisterWorkflowTypeCommand({ domain, name: 'Bare', version: '1' }));
    const undefinedDefault = await rejection(swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'bare', workflowType: { name: 'Bare', version: '1' } })));
    expect(undefinedDefault).toBeInstanceOf(DefaultUndefinedFault);
    expect(undefinedDefault.message).toMatch(/No default value/);
    const gone = uniqueDomain('http-gone');
    await registerDomain(gone);
    await swf.send(new DeprecateDomainCommand({ name: gone }));
    expect(await rejection(swf.send(new DeprecateDomainCommand({ name: gone })))).toBeInstanceOf(DomainDeprecatedFault);
    // Over 1 MiB: refused before it is read into memory whole; the SDK surfaces the name and the 413.
    const big = await rejection(swf.send(new RegisterDomainCommand({ name: uniqueDomain('big'), workflowExecutionRetentionPeriodInDays: '1', description: 'x'.repeat(1_100_000) })));
    expect(big).toBeInstanceOf(SWFServiceException);
    expect([big.name, big.$metadata.httpStatusCode]).toEqual(['RequestEntityTooLargeException', 413]);
  });

  it('answers an empty poll without a taskToken, as the SDK expects', async () => {
    const domain = uniqueDomain('http-empty');
    await registerOrder(swf, domain);
    const raw = await rawCall(port, { target: 'SimpleWorkflowService.PollForActivityTask', body: JSON.stringify({ domain, taskList: { name: ACTIVITIES }, afPollTimeoutMs: 1000 }) });
    expect(raw.status).toBe(200);
    expect(raw.json).toEqual({ startedEventId: 0 });
    // The same through the SDK (which would hold 60 s; the extension member shortens the poll).
    const short = swfClient(port);
    short.middlewareStack.add((next) => async (args) => {
      const req = args.request as { body: string | Uint8Array; headers: Record<string, string> };
      const text = typeof req.body === 'string' ? req.body : new TextDecoder().decode(req.body);
      req.body = JSON.stringify({ ...JSON.parse(text), afPollTimeoutMs: 1000 });
      req.headers['content-length'] = String(Buffer.byteLength(req.body));
      return next(args);
    }, { step: 'build', name: 'shortPoll', priority: 'low' });
    try {
      const empty = await short.send(new PollForActivityTaskCommand({ domain, taskList: { name: ACTIVITIES } }));
      expect(empty.taskToken).toBeUndefined();
      expect(empty.$metadata.httpStatusCode).toBe(200);
    } finally {
      short.destroy();
    }
  });
});

describe('the wire protocol', () => {
  const call = (target: string | undefined, body?: string | Uint8Array, headers?: Record<string, string>) => rawCall(port, { target, body, headers });

  it('answers 200 JSON with a request id; an empty body is {}', async () => {
    const ok = await call('SimpleWorkflowService.ListDomains', '{"registrationStatus":"REGISTERED","unknownMember":1}');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/x-amz-json-1.0');
    expect(ok.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Array.isArray(ok.json.domainInfos)).toBe(true);
    const empty = await call('SimpleWorkflowService.ListDomains', '');
    expectAwsError(empty, 400, 'ValidationException');
    expect(empty.json.message).toMatch(/registrationStatus/);
  });

  it('answers unknown actions and targets with UnknownOperationException', async () => {
    for (const target of ['SimpleWorkflowService.NoSuchAction', 'SimpleWorkflowService.toString', 'SimpleWorkflowService.__proto__',
      'SimpleWorkflowService.constructor', 'AWSStepFunctions.ListDomains', 'AWSStepFunctions.toString', 'Nope.ListDomains',
      'SimpleWorkflowService', 'ListDomains', '']) {
      expectAwsError(await call(target, '{}'), 400, 'UnknownOperationException');
    }
    expectAwsError(await call(undefined, '{}'), 400, 'UnknownOperationException');
  });

  it('answers malformed JSON, a non-object body and wrong member types with SerializationException', async () => {
    const target = 'SimpleWorkflowService.ListDomains';
    for (const body of ['{', '{"registrationStatus":', '[]', 'null', '"REGISTERED"', '42', 'true', '{"registrationStatus": 5}',
      '{"registrationStatus":"REGISTERED","maximumPageSize":"10"}', '{"registrationStatus":"REGISTERED","reverseOrder":"yes"}']) {
      expectAwsError(await call(target, body), 400, 'SerializationException');
    }
    expectAwsError(await call(target, new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), 400, 'SerializationException');
    expectAwsError(await call(target, '{"registrationStatus":"REGISTERED"}', { 'content-type': 'text/plain' }), 400, 'SerializationException');
    expectAwsError(await call('SimpleWorkflowService.DescribeDomain', '{"name":{"nested":true}}'), 400, 'SerializationException');
  });

  it('answers only loopback host names without access keys (DNS rebinding): another Host is 421 and changes nothing', async () => {
    const domain = uniqueDomain('rebind');
    const body = JSON.stringify({ name: domain, workflowExecutionRetentionPeriodInDays: '1' });
    const withHost = (host: string, path = '/', method = 'POST') => new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, headers: { host, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'SimpleWorkflowService.RegisterDomain' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => { text += c.toString(); });
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject).end(method === 'POST' ? body : undefined);
    });
    for (const host of ['evil.example', `evil.example:${port}`, 'localhost.evil.example', '10.0.0.1:80']) {
      const a = await withHost(host);
      expect([a.status, JSON.parse(a.body).__type]).toEqual([421, 'MisdirectedRequestException']);
    }
    expect((await withHost('evil.example', '/metrics', 'GET')).status).toBe(421);
    expect(await rejection(swf.send(new DescribeDomainCommand({ name: domain })))).toBeInstanceOf(UnknownResourceFault);
    expect((await withHost(`localhost:${port}`)).status).toBe(200);
    expect((await withHost('[::1]')).status).toBe(400); // already registered: served
    expect((await withHost(`127.0.0.1:${port}`, '/metrics', 'GET')).status).toBe(200);
  });

  it('serves POST / only: GET is 405, another path 404', async () => {
    const get = await rawCall(port, { method: 'GET' });
    expectAwsError(get, 405, 'MethodNotAllowedException');
    expect(get.headers.get('allow')).toBe('POST');
    expectAwsError(await rawCall(port, { target: 'SimpleWorkflowService.ListDomains', path: '/other', body: '{}' }), 404, 'UnknownOperationException');
  });
});

describe('graceful stop', () => {
  it('ends held polls with an empty answer, then closes the HTTP server', async () => {
    const own = await startTestEngine({ http: { port: 0, accessKeys: {} } });
    const ownPort = own.node.http!.port;
    const client = swfClient(ownPort);
    try {
      const domain = uniqueDomain('http-stop');
      await registerOrder(client, domain);
      const held = client.send(new PollForDecisionTaskCommand({ domain, taskList: { name: DECISIONS } }));
      await until(() => own.node.http!.inflightRequests === 1, { message: 'the poll is held' });
      const t0 = Date.now();
      await own.stop();
      const empty = await held;
      expect(empty.taskToken).toBeUndefined();
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(await rejection(rawCall(ownPort, { target: 'SimpleWorkflowService.ListDomains', body: '{}' }))).toBeInstanceOf(TypeError);
    } finally {
      client.destroy();
      await own.stop().catch(() => undefined);
    }
  });
});

describe('limits', () => {
  it('surfaces LimitExceededFault when the domain limit is reached', async () => {
    const own = await startTestEngine({ http: { port: 0, accessKeys: {} } });
    const client = swfClient(own.node.http!.port);
    try {
      let err: any;
      for (let i = 0; i < 1000 && !err; i++) {
        err = await client.send(new RegisterDomainCommand({ name: `limit-${i}`, workflowExecutionRetentionPeriodInDays: '1' })).then(() => undefined, (x: unknown) => x);
      }
      expect(err).toBeInstanceOf(LimitExceededFault);
    } finally {
      client.destroy();
      await own.stop();
    }
  });
});
