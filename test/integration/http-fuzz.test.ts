import {
  DescribeWorkflowExecutionCommand, ListDomainsCommand, PollForActivityTaskCommand, PollForDecisionTaskCommand,
  RegisterActivityTypeCommand, RegisterDomainCommand, RegisterWorkflowTypeCommand, RespondActivityTaskCompletedCommand,
  RespondDecisionTaskCompletedCommand, StartWorkflowExecutionCommand, type SWFClient,
} from '@aws-sdk/client-swf';
import fc from 'fast-check';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/swf/operations.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { fuzzCases, runFuzzCases, type FuzzCase, type Json, type Template } from '../helpers/fuzz-cases.js';
import { rawCall, swfClient, type RawAnswer } from '../helpers/swf-http.js';

const KEY = { accessKeyId: 'AKIDFUZZ', secretAccessKey: 'fuzz-secret' };
/** A fixed seed keeps CI repeatable; AF_FUZZ_SEED=<n> explores others. */
const SEED = Number(process.env.AF_FUZZ_SEED ?? 20_261_129);
const RUNS = Number(process.env.AF_FUZZ_RUNS ?? 2400);
const CONCURRENCY = 16;
const HOLD_MS = 300;

const KNOWN_FAULTS = new Set(['ValidationException', 'UnknownResourceFault', 'SerializationException', 'UnknownOperationException',
  'DomainAlreadyExistsFault', 'DomainDeprecatedFault', 'TypeAlreadyExistsFault', 'TypeDeprecatedFault', 'TypeNotDeprecatedFault',
  'WorkflowExecutionAlreadyStartedFault', 'DefaultUndefinedFault', 'LimitExceededFault', 'OperationNotPermittedFault']);

let e: TestEngine;
let swf: SWFClient;
let port: number;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => { unhandled.push(reason); };
beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  e = await startTestEngine({ http: { port: 0, accessKeys: { [KEY.accessKeyId]: KEY.secretAccessKey } } });
  port = e.node.http!.port;
  swf = swfClient(port, KEY);
});
afterAll(async () => {
  swf?.destroy();
  await e?.stop();
  process.off('unhandledRejection', onUnhandled);
});

/** A domain with a run holding a started activity task (r1) and one holding a started decision task (r2). */
async function sentinel() {
  const domain = uniqueDomain('fuzz');
  const flow = { name: 'FuzzFlow', version: '1' };
  const step = { name: 'FuzzStep', version: '1' };
  await swf.send(new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }));
  await swf.send(new RegisterWorkflowTypeCommand({ domain, ...flow, defaultTaskList: { name: 'fuzz-d' }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '3600' }));
  await swf.send(new RegisterActivityTypeCommand({ domain, ...step, defaultTaskList: { name: 'fuzz-a' }, defaultTaskScheduleToStartTimeout: '3600',
    defaultTaskStartToCloseTimeout: '3600', defaultTaskScheduleToCloseTimeout: '7200', defaultTaskHeartbeatTimeout: 'NONE' }));
  const r1 = await swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'r1', workflowType: flow }));
  const d1 = await swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: 'fuzz-d' } }));
  await swf.send(new RespondDecisionTaskCompletedCommand({ taskToken: d1.taskToken, decisions: [{ decisionType: 'ScheduleActivityTask',
    scheduleActivityTaskDecisionAttributes: { activityType: step, activityId: 'step-1', input: 'in' } }] }));
  const a1 = await swf.send(new PollForActivityTaskCommand({ domain, taskList: { name: 'fuzz-a' } }));
  const r2 = await swf.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'r2', workflowType: flow }));
  const d2 = await swf.send(new PollForDecisionTaskCommand({ domain, taskList: { name: 'fuzz-d' } }));
  return { domain, flow, step, r1: { workflowId: 'r1', runId: r1.runId! }, r2: { workflowId: 'r2', runId: r2.runId! }, activityToken: a1.taskToken!, decisionToken: d2.taskToken! };
}

function templates(s: Awaited<ReturnType<typeof sentinel>>): Template[] {
  const { domain: D, flow, step } = s;
  const all: Template[] = [
    { action: 'RegisterDomain', input: { name: 'fuzz-new-domain', workflowExecutionRetentionPeriodInDays: '1', description: 'd' }, required: ['name', 'workflowExecutionRetentionPeriodInDays'], ids: [['name']] },
    { action: 'DeprecateDomain', input: { name: D }, required: ['name'], ids: [['name']] },
    { action: 'RegisterWorkflowType', input: { domain: D, name: 'NewFlow', version: '1', description: 'x', defaultTaskList: { name: 'x' }, defaultTaskStartToCloseTimeout: '30', defaultExecutionStartToCloseTimeout: '60', defaultChildPolicy: 'TERMINATE' },
      required: ['domain', 'name', 'version'], ids: [['domain'], ['name'], ['version'], ['defaultTaskList', 'name']], enums: [['defaultChildPolicy']] },
    { action: 'RegisterActivityType', input: { domain: D, name: 'NewStep', version: '1', defaultTaskList: { name: 'x' }, defaultTaskStartToCloseTimeout: '30', defaultTaskHeartbeatTimeout: 'NONE' },
      required: ['domain', 'name', 'version'], ids: [['domain'], ['name'], ['version'], ['defaultTaskList', 'name']] },
    { action: 'DeprecateWorkflowType', input: { domain: D, workflowType: flow }, required: ['domain', 'workflowType'], ids: [['domain'], ['workflowType', 'name'], ['workflowType', 'version']] },
    { action: 'DeprecateActivityType', input: { domain: D, activityType: step }, required: ['domain', 'activityType'], ids: [['domain'], ['activityType', 'name'], ['activityType', 'version']] },
    { action: 'StartWorkflowExecution', input: { domain: D, workflowId: 'fuzz-new-run', workflowType: flow, taskList: { name: 'fuzz-d' }, input: '{}', executionStartToCloseTimeout: '60', taskStartToCloseTimeout: '30', childPolicy: 'TERMINATE', tagList: ['t'] },
      required: ['domain', 'workflowId', 'workflowType'], ids: [['domain'], ['workflowId'], ['workflowType', 'name'], ['workflowType', 'version'], ['taskList', 'name']], enums: [['childPolicy']] },
    { action: 'RespondDecisionTaskCompleted', input: { taskToken: s.decisionToken, executionContext: 'ctx', decisions: [
      { decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: step, activityId: 'step-x', input: 'i', control: 'c' } },
      { decisionType: 'RecordMarker', recordMarkerDecisionAttributes: { markerName: 'm', details: 'd' } }] },
    required: ['taskToken'], ids: [['decisions', 0, 'scheduleActivityTaskDecisionAttributes', 'activityType', 'name'], ['decisions', 0, 'scheduleActivityTaskDecisionAttributes', 'activityId'], ['decisions', 1, 'recordMarkerDecisionAttributes', 'markerName']],
    enums: [['decisions', 0, 'decisionType'], ['decisions', 1, 'decisionType']] },
    { action: 'RespondActivityTaskCompleted', input: { taskToken: s.activityToken, result: 'r' }, required: ['taskToken'], ids: [] },
    { action: 'RespondActivityTaskFailed', input: { taskToken: s.activityToken, reason: 'x', details: 'y' }, required: ['taskToken'], ids: [] },
    { action: 'RespondActivityTaskCanceled', input: { taskToken: s.activityToken, details: 'y' }, required: ['taskToken'], ids: [] },
    { action: 'RecordActivityTaskHeartbeat', input: { taskToken: s.activityToken, details: 'y' }, required: ['taskToken'], ids: [] },
    { action: 'SignalWorkflowExecution', input: { domain: D, ...s.r1, signalName: 'sig', input: 'i' }, required: ['domain', 'workflowId', 'signalName'], ids: [['domain'], ['workflowId'], ['signalName']] },
    { action: 'TerminateWorkflowExecution', input: { domain: D, ...s.r1, reason: 'r', details: 'd', childPolicy: 'TERMINATE' }, required: ['domain', 'workflowId'], ids: [['domain'], ['workflowId']], enums: [['childPolicy']] },
    { action: 'RequestCancelWorkflowExecution', input: { domain: D, ...s.r1 }, required: ['domain', 'workflowId'], ids: [['domain'], ['workflowId']] },
    { action: 'DescribeDomain', input: { name: D }, required: ['name'], ids: [['name']] },
    { action: 'ListDomains', input: { registrationStatus: 'REGISTERED', maximumPageSize: 5, reverseOrder: true }, required: ['registrationStatus'], ids: [], enums: [['registrationStatus']] },
    { action: 'ListWorkflowTypes', input: { domain: D, registrationStatus: 'REGISTERED', name: 'FuzzFlow' }, required: ['domain', 'registrationStatus'], ids: [['domain'], ['name']], enums: [['registrationStatus']] },
    { action: 'DescribeWorkflowExecution', input: { domain: D, execution: s.r1 }, required: ['domain', 'execution'], ids: [['domain'], ['execution', 'workflowId']] },
    { action: 'GetWorkflowExecutionHistory', input: { domain: D, execution: s.r1, maximumPageSize: 10, reverseOrder: false }, required: ['domain', 'execution'], ids: [['domain'], ['execution', 'workflowId']] },
    { action: 'CountPendingDecisionTasks', input: { domain: D, taskList: { name: 'fuzz-d' } }, required: ['domain', 'taskList'], ids: [['domain'], ['taskList', 'name']] },
    { action: 'PollForDecisionTask', input: { domain: D, taskList: { name: 'fuzz-d' }, identity: 'fuzzer', maximumPageSize: 10 }, required: ['domain', 'taskList'], ids: [['domain'], ['taskList', 'name']] },
    { action: 'PollForActivityTask', input: { domain: D, taskList: { name: 'fuzz-a' }, identity: 'fuzzer' }, required: ['domain', 'taskList'], ids: [['domain'], ['taskList', 'name']] },
  ];
  return all.filter((t) => Object.hasOwn(OPERATIONS, t.action));
}

/** Everything a refused call could have changed, read over NATS (the other transport). */
async function snapshot(s: Awaited<ReturnType<typeof sentinel>>): Promise<unknown> {
  const c = e.client;
  const D = s.domain;
  return {
    domains: await Promise.all(['REGISTERED', 'DEPRECATED'].map((registrationStatus) => c.call('ListDomains', { registrationStatus }))),
    workflowTypes: await Promise.all(['REGISTERED', 'DEPRECATED'].map((registrationStatus) => c.call('ListWorkflowTypes', { domain: D, registrationStatus }))),
    activityTypes: await Promise.all(['REGISTERED', 'DEPRECATED'].map((registrationStatus) => c.call('ListActivityTypes', { domain: D, registrationStatus }))),
    histories: await Promise.all([s.r1, s.r2].map((execution) => c.history(D, execution))),
    runs: await Promise.all([s.r1, s.r2].map((execution) => c.call('DescribeWorkflowExecution', { domain: D, execution }))),
    pending: [await c.call('CountPendingDecisionTasks', { domain: D, taskList: { name: 'fuzz-d' } }), await c.call('CountPendingActivityTasks', { domain: D, taskList: { name: 'fuzz-a' } })],
  };
}

/** Sends bytes that are not a valid HTTP request; answers what came back before the server closed. */
function sendRaw(bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (d) => { got += d.toString('latin1'); });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(got));
    socket.setTimeout(5000, () => socket.destroy());
    socket.write(bytes);
  });
}

function parseRaw(text: string): RawAnswer {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Headers(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()] as [string, string]));
  let json: unknown;
  try { json = JSON.parse(body); } catch { json = undefined; }
  return { status: Number(statusLine.split(' ')[1]), headers, text: body, json };
}

/** What is wrong with an answer, if anything. */
function problem(c: FuzzCase, a: RawAnswer): string | undefined {
  const { status, json } = a;
  if (![200, 400, 403, 413, 431].includes(status)) return `status ${status}`;
  if (a.headers.get('content-type') !== 'application/x-amz-json-1.0') return `content-type ${a.headers.get('content-type')}`;
  if (a.headers.get('x-amzn-errortype') !== null) return 'x-amzn-errortype sent';
  if (!c.raw && !a.headers.get('x-amzn-requestid')) return 'no x-amzn-RequestId';
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return `body is not a JSON object: ${a.text.slice(0, 100)}`;
  if (status !== 200 && (typeof json.__type !== 'string' || typeof json.message !== 'string')) return `error without __type/message: ${a.text.slice(0, 200)}`;
  if (status === 400 && !c.raw && !KNOWN_FAULTS.has(json.__type)) return `unknown fault ${json.__type}`;
  if (c.expect === 'any') return undefined;
  const statuses = ([] as number[]).concat(c.expect.status);
  const types = ([] as string[]).concat(c.expect.type);
  if (!statuses.includes(status) || !types.includes(json.__type)) return `expected ${statuses.join('|')} ${types.join('|')}, got ${status} ${json.__type}: ${String(json.message).slice(0, 160)}`;
  return undefined;
}

async function send(c: FuzzCase): Promise<string | undefined> {
  if (c.raw) {
    const text = await sendRaw(c.raw);
    return problem(c, parseRaw(text));
  }
  const signal = c.mayHold ? AbortSignal.timeout(HOLD_MS) : undefined;
  try {
    const body = c.padTo ? `${String(c.request!.body).slice(0, -1)},"padding":"${'p'.repeat(c.padTo)}"}` : c.request!.body;
    return problem(c, await rawCall(port, { ...c.request!, body, signal }));
  } catch (err) {
    if (c.mayHold && signal?.aborted) return undefined; // a long poll that was still held: fine
    return `request failed: ${(err as Error).message} ${((err as Error).cause as Error | undefined)?.message ?? ''}`;
  }
}

describe('HTTP gateway request fuzzing', () => {
  it(`answers ${RUNS} random and malformed requests with well-formed AWS errors, writes nothing, keeps serving`, async () => {
    const s = await sentinel();
    const before = await snapshot(s);
    const readOnly = ['DescribeDomain', 'ListDomains', 'DescribeWorkflowType', 'DescribeActivityType', 'ListWorkflowTypes', 'ListActivityTypes',
      'DescribeWorkflowExecution', 'GetWorkflowExecutionHistory', 'CountPendingDecisionTasks', 'CountPendingActivityTasks', 'PollForDecisionTask',
      'PollForActivityTask', 'ListOpenWorkflowExecutions', 'ListClosedWorkflowExecutions', 'CountOpenWorkflowExecutions', 'CountClosedWorkflowExecutions',
    ].filter((a) => Object.hasOwn(OPERATIONS, a));
    const pool: Json[] = [s.domain, 'REGISTERED', 'DEPRECATED', { name: 'fuzz-d' }, { name: 'fuzz-a' }, s.r1, s.r2, s.flow, s.step, 'r1', s.r1.runId, 5, 1000, 0, -1, true,
      { oldestDate: 0 }, { workflowId: 'r1' }, { tag: 't' }, { status: 'COMPLETED' }, 'x'.repeat(3000)];
    const cases = fc.sample(fuzzCases({ templates: templates(s), readOnly, actions: new Set(Object.keys(OPERATIONS)), key: KEY, port, pool }), { seed: SEED, numRuns: RUNS });

    const { failures, kinds, ms } = await runFuzzCases(cases, CONCURRENCY,
      (c) => c.kind.replace(/ at .*| \(.*\)| for .*/, '').replace(/^(missing|content type) .*/, '$1'), send,
      (c, p) => `${c.kind}: ${p}\n    ${c.request?.target ?? ''} ${String(c.request?.body ?? c.raw ?? '').slice(0, 200)}`);
    console.log(`fuzz: ${cases.length} requests (seed ${SEED}) in ${ms} ms; ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}`);
    expect(failures.slice(0, 15), `${failures.length} bad answers`).toEqual([]);
    expect(cases.length).toBeGreaterThanOrEqual(2000);

    // Nothing was written by any refused call.
    expect(await snapshot(s)).toEqual(before);

    // Good requests still work, on the same held tasks the fuzzer aimed at.
    const list = await swf.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' }));
    expect(list.domainInfos!.map((d) => d.name)).toContain(s.domain);
    await swf.send(new RespondActivityTaskCompletedCommand({ taskToken: s.activityToken, result: 'done' }));
    await swf.send(new RespondDecisionTaskCompletedCommand({ taskToken: s.decisionToken, decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'ok' } }] }));
    const r2 = await swf.send(new DescribeWorkflowExecutionCommand({ domain: s.domain, execution: s.r2 }));
    expect(r2.executionInfo!.closeStatus).toBe('COMPLETED');
    const r1 = (await e.client.history(s.domain, s.r1)).map((x) => x.eventType);
    // The decision task that follows is scheduled and left for a live decider: aborted fuzz polls did not take it.
    expect(r1.slice(-3)).toEqual(['ActivityTaskStarted', 'ActivityTaskCompleted', 'DecisionTaskScheduled']);
    expect(unhandled).toEqual([]);
  }, 60_000);
});
