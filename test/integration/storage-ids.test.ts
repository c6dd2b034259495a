import { createHash } from 'node:crypto';
import {
  CountOpenWorkflowExecutionsCommand, CountPendingDecisionTasksCommand, DeprecateDomainCommand, DescribeDomainCommand, DescribeWorkflowExecutionCommand,
  ListDomainsCommand, ListWorkflowTypesCommand, RegisterDomainCommand, RegisterWorkflowTypeCommand,
  StartWorkflowExecutionCommand, SWFServiceException, TerminateWorkflowExecutionCommand, type SWFClient,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAccessKeys } from '../../src/transport/access-keys.js';
import { escapeToken } from '../../src/nats/subjects.js';
import { isFault } from '../../src/protocol/faults.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { rawCall, swfClient } from '../helpers/swf-http.js';

/** A domain whose escaped form is over 200 characters, so it is stored under its hash. */
const LONG = `${uniqueDomain('long')}-${'x'.repeat(220)}`;
const sha = (s: string) => createHash('sha256').update(s).digest('base64url');
/** Names a limited key may register that look like LONG's stored forms, old (`h…`) and new (`~h…`, `=h…` in KV). */
const LOOKALIKES = [`h${sha(LONG).replaceAll('-', '_')}`, `~h${sha(LONG)}`, `=h${sha(LONG)}`];
const FULL = { accessKeyId: 'AKIDIDSFULL', secretAccessKey: 'full-secret' };
const LIMITED = { accessKeyId: 'AKIDIDSLIMITED', secretAccessKey: 'limited-secret' };
const WF = { name: 'wf', version: '1' };

let e: TestEngine;
let full: SWFClient;
let limited: SWFClient;
beforeAll(async () => {
  const keys = parseAccessKeys(`${FULL.accessKeyId}:${FULL.secretAccessKey}\n${LIMITED.accessKeyId}:${LIMITED.secretAccessKey}:${LOOKALIKES.join('|')}`, 'test keys');
  e = await startTestEngine({ http: { port: 0, accessKeys: keys } });
  full = swfClient(e.node.http!.port, FULL);
  limited = swfClient(e.node.http!.port, LIMITED);
});
afterAll(async () => {
  full?.destroy();
  limited?.destroy();
  await e?.stop();
});

async function faultOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return err instanceof SWFServiceException || isFault(err) ? (err as Error).name : `unexpected ${String(err)}`;
  }
  return 'no fault';
}

describe('ids map one-to-one to storage', () => {
  it('never gives a literal id the stored form of another (hashed) id', () => {
    const long = 'é'.repeat(150);
    expect(escapeToken(long)).toMatch(/^~h[A-Za-z0-9_-]{43}$/);
    expect(new Set([long, `h${sha(long)}`, `~h${sha(long)}`, escapeToken(long)].map(escapeToken)).size).toBe(4);
    // Lone surrogates are written as their own bytes, never as U+FFFD's, long or short.
    const forms = ['lone\ud800', 'lone\udfff', 'lone\ufffd'].map((s) => [escapeToken(s), escapeToken(s + 'x'.repeat(300))]).flat();
    expect(new Set(forms).size).toBe(6);
  });

  it('keeps a domain named like the hash of a long domain apart from it, through a domain-limited key', async () => {
    await full.send(new RegisterDomainCommand({ name: LONG, workflowExecutionRetentionPeriodInDays: '1' }));
    await full.send(new RegisterWorkflowTypeCommand({
      domain: LONG, ...WF, defaultTaskList: { name: 'tl' }, defaultChildPolicy: 'TERMINATE',
      defaultExecutionStartToCloseTimeout: '600', defaultTaskStartToCloseTimeout: '60',
    }));
    const { runId } = await full.send(new StartWorkflowExecutionCommand({ domain: LONG, workflowId: 'wf-1', workflowType: WF, input: 'secret of A' }));
    for (const name of LOOKALIKES) {
      // Before: the registry key was the long domain's, so this was DomainAlreadyExistsFault.
      await limited.send(new RegisterDomainCommand({ name, workflowExecutionRetentionPeriodInDays: '2' }));
      expect((await limited.send(new DescribeDomainCommand({ name }))).configuration?.workflowExecutionRetentionPeriodInDays).toBe('2');
      expect((await limited.send(new ListWorkflowTypesCommand({ domain: name, registrationStatus: 'REGISTERED' }))).typeInfos).toEqual([]);
      expect((await limited.send(new CountPendingDecisionTasksCommand({ domain: name, taskList: { name: 'tl' } }))).count).toBe(0);
      expect(await faultOf(limited.send(new TerminateWorkflowExecutionCommand({ domain: name, workflowId: 'wf-1' })))).toBe('UnknownResourceFault');
      expect(await faultOf(limited.send(new StartWorkflowExecutionCommand({ domain: name, workflowId: 'wf-1', workflowType: WF })))).toBe('UnknownResourceFault');
      await limited.send(new DeprecateDomainCommand({ name }));
    }
    const names = ((await limited.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' }))).domainInfos ?? []).map((d) => d.name);
    expect(names).toEqual([]);
    // The long domain is untouched: registered, its run open, its decision task pending.
    expect((await full.send(new DescribeDomainCommand({ name: LONG }))).domainInfo?.status).toBe('REGISTERED');
    const run = await full.send(new DescribeWorkflowExecutionCommand({ domain: LONG, execution: { workflowId: 'wf-1', runId } }));
    expect(run.executionInfo?.executionStatus).toBe('OPEN');
    expect((await full.send(new CountPendingDecisionTasksCommand({ domain: LONG, taskList: { name: 'tl' } }))).count).toBe(1);
  });
});

describe('lone surrogates are refused with ValidationException', () => {
  const port = () => e.node.http!.port;
  const call = async (target: string, body: object) => {
    const a = await rawCall(port(), { target, body: JSON.stringify(body), sign: { ...FULL, service: target.startsWith('AWS') ? 'states' : 'swf' } });
    return { status: a.status, type: a.json?.__type as string, message: a.json?.message as string };
  };
  const LONE = ['lone\ud800', 'lone\udfff', `${'y'.repeat(300)}\udbff`];

  it('on SWF actions, and the well-formed lookalike U+FFFD is its own id', async () => {
    const domain = uniqueDomain('uni');
    await full.send(new RegisterDomainCommand({ name: domain, workflowExecutionRetentionPeriodInDays: '1' }));
    await full.send(new RegisterWorkflowTypeCommand({ domain, ...WF, defaultTaskList: { name: 'tl' }, defaultChildPolicy: 'TERMINATE',
      defaultExecutionStartToCloseTimeout: '600', defaultTaskStartToCloseTimeout: '60' }));
    for (const bad of LONE.slice(0, 2)) {
      const r = await call('SimpleWorkflowService.RegisterDomain', { name: bad, workflowExecutionRetentionPeriodInDays: '1' });
      expect(r).toMatchObject({ status: 400, type: 'ValidationException' });
      expect(r.message).toMatch(/at 'name' failed to satisfy constraint: Member must contain only valid Unicode characters/);
    }
    for (const bad of LONE) {
      expect(await call('SimpleWorkflowService.StartWorkflowExecution', { domain, workflowId: bad, workflowType: WF })).toMatchObject({ status: 400, type: 'ValidationException' });
      expect(await call('SimpleWorkflowService.StartWorkflowExecution', { domain, workflowId: 'ok', workflowType: WF, taskList: { name: bad } })).toMatchObject({ type: 'ValidationException' });
      expect(await call('SimpleWorkflowService.SignalWorkflowExecution', { domain, workflowId: bad, signalName: 's' })).toMatchObject({ type: 'ValidationException' });
      expect(await call('SimpleWorkflowService.CountPendingActivityTasks', { domain, taskList: { name: bad } })).toMatchObject({ type: 'ValidationException' });
      expect(await call('SimpleWorkflowService.StartWorkflowExecution', { domain, workflowId: 'ok2', workflowType: WF, tagList: [bad] })).toMatchObject({ type: 'ValidationException' });
      // Over NATS the SDK refuses before msgpack would turn the surrogate into U+FFFD (another, valid id).
      expect(await faultOf(e.client.call('StartWorkflowExecution', { domain, workflowId: bad, workflowType: WF }))).toBe('ValidationException');
      expect(await faultOf(e.client.call('StartWorkflowExecution', { domain, workflowId: 'ok3', workflowType: WF, tagList: ['t', bad] }))).toBe('ValidationException');
    }
    // Nothing was started by the refusals; U+FFFD itself is a valid id of its own.
    await full.send(new StartWorkflowExecutionCommand({ domain, workflowId: 'lone\ufffd', workflowType: WF }));
    const open = await full.send(new CountOpenWorkflowExecutionsCommand({ domain, startTimeFilter: { oldestDate: new Date(0) } }));
    expect(open.count).toBe(1);
  });

  it('on Step Functions actions', async () => {
    for (const bad of LONE) {
      expect(await call('AWSStepFunctions.CreateActivity', { name: bad })).toMatchObject({ status: 400, type: 'ValidationException' });
      expect(await call('AWSStepFunctions.DescribeActivity', { activityArn: `arn:aws:states:us-east-1:000000000000:activity:${bad}` })).toMatchObject({ status: 400, type: 'ValidationException' });
      expect(await call('AWSStepFunctions.StartExecution', { stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:sm', name: bad })).toMatchObject({ status: 400, type: 'ValidationException' });
      expect(await call('AWSStepFunctions.SendTaskSuccess', { taskToken: `t${bad}`, output: '{}' })).toMatchObject({ status: 400, type: 'ValidationException' });
    }
    const listed = await call('AWSStepFunctions.ListActivities', {});
    expect(listed.status).toBe(200);
  });
});
