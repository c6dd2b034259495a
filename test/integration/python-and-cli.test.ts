import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { AWS, PYTHON, requireClient, run, type Ran } from '../helpers/external-clients.js';

/**
 * Clients other than our own against the AWS JSON 1.0 gateway: boto3 (examples/swf_order_boto3.py
 * runs the order workflow end to end) and the aws CLI (test/helpers/external-clients.ts).
 */
const SCRIPT = fileURLToPath(new URL('../../examples/swf_order_boto3.py', import.meta.url));

const STEP = ['DecisionTaskScheduled', 'DecisionTaskStarted', 'DecisionTaskCompleted', 'ActivityTaskScheduled', 'ActivityTaskStarted', 'ActivityTaskCompleted'];
const ORDER_HISTORY = ['WorkflowExecutionStarted', ...STEP, ...STEP, ...STEP, ...STEP,
  'DecisionTaskScheduled', 'DecisionTaskStarted', 'DecisionTaskCompleted', 'WorkflowExecutionCompleted'];

let e: TestEngine;
let endpoint: string;
beforeAll(async () => {
  // Signed with the clients' own SigV4 and verified by the gateway's strict checks (every x-amz-* header signed, region).
  e = await startTestEngine({ http: { host: '127.0.0.1', port: 0, accessKeys: { AKIDCLITEST: 'cli-test-secret', AKIDPYTHONTEST: 'python-test-secret' } } });
  endpoint = e.node.http!.url;
});
afterAll(async () => {
  await e?.stop();
});

describe('boto3', () => {
  it('runs the order workflow with a Python decider and activity worker (examples/swf_order_boto3.py)', async () => {
    await requireClient('boto3');
    const domain = uniqueDomain('py-order');
    const r = await run(PYTHON, [SCRIPT, endpoint, domain], 40_000);
    expect(r.code, `swf_order_boto3.py failed:\n${r.stderr}\n${r.stdout}`).toBe(0);
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      closeStatus: string; executionStatus: string; result: string; eventIds: number[]; eventTypes: string[];
    };
    expect(summary.executionStatus).toBe('CLOSED');
    expect(summary.closeStatus).toBe('COMPLETED');
    expect(ORDER_HISTORY).toHaveLength(29);
    expect(summary.eventTypes).toEqual(ORDER_HISTORY);
    expect(summary.eventIds).toEqual(Array.from({ length: 29 }, (_, i) => i + 1));
    expect(JSON.parse(summary.result)).toEqual({ orderId: 1, VerifyOrder: 'ok', ChargeCreditCard: 'ok', ShipOrder: 'ok', RecordCompletion: 'ok' });
  }, 45_000);
});

describe('the aws CLI', () => {
  const aws = (...args: string[]) => run(AWS, ['swf', ...args, '--endpoint-url', endpoint, '--region', 'us-east-1', '--output', 'json']);
  const ok = (r: Ran): any => {
    expect(r.code, `aws failed (exit ${r.code}):\n${r.stderr}`).toBe(0);
    return r.stdout.trim() === '' ? {} : JSON.parse(r.stdout);
  };

  it('lists domains, registers a type, starts and describes an execution; a fault exits non-zero', async () => {
    await requireClient('aws');
    const domain = uniqueDomain('cli');
    // Each CLI start costs a second or more (several under load): the domain comes over NATS, and the
    // calls that do not depend on each other run side by side.
    await e.client.call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
    const [domains, registered, fault] = await Promise.all([
      aws('list-domains', '--registration-status', 'REGISTERED'),
      aws('register-workflow-type', '--domain', domain, '--name', 'CliOrder', '--workflow-version', '1',
        '--default-task-list', JSON.stringify({ name: 'cli-decisions' }), '--default-child-policy', 'TERMINATE',
        '--default-execution-start-to-close-timeout', '3600', '--default-task-start-to-close-timeout', '30'),
      aws('describe-domain', '--name', 'nope'),
    ]);
    expect(ok(domains).domainInfos).toContainEqual(expect.objectContaining({ name: domain, status: 'REGISTERED' }));
    ok(registered);
    expect(fault.code).not.toBe(0);
    expect(fault.stderr).toContain('UnknownResourceFault');

    const started = ok(await aws('start-workflow-execution', '--domain', domain, '--workflow-id', 'cli-1',
      '--workflow-type', JSON.stringify({ name: 'CliOrder', version: '1' }), '--input', '{"orderId":7}'));
    expect(started.runId).toMatch(/^\S+$/);

    const described = ok(await aws('describe-workflow-execution', '--domain', domain,
      '--execution', JSON.stringify({ workflowId: 'cli-1', runId: started.runId })));
    expect(described.executionInfo).toMatchObject({
      execution: { workflowId: 'cli-1', runId: started.runId }, workflowType: { name: 'CliOrder', version: '1' }, executionStatus: 'OPEN',
    });
    expect(described.openCounts.openDecisionTasks).toBe(1);
  }, 45_000);
});
