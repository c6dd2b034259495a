import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';

/**
 * Clients other than our own against the AWS JSON 1.0 gateway: boto3 (test/clients/swf_order.py
 * runs the order workflow end to end) and the aws CLI. Both are Debian's packages (python3-boto3,
 * awscli), run with /usr/bin/python3 explicitly; a missing one fails the test, it never skips.
 */
const PYTHON = '/usr/bin/python3';
const AWS = '/usr/bin/aws';
const SCRIPT = fileURLToPath(new URL('../clients/swf_order.py', import.meta.url));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The caller's environment without its AWS and Python settings, plus dummy credentials. */
function clientEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(AWS_|PYTHON)/.test(k)));
  return {
    ...env,
    AWS_ACCESS_KEY_ID: 'AKIDCLITEST',
    AWS_SECRET_ACCESS_KEY: 'cli-test-secret',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PAGER: '',
    // No profile or config of whoever runs the tests may change what the clients send.
    AWS_CONFIG_FILE: '/nonexistent/actorflow-aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/actorflow-aws-credentials',
    AWS_MAX_ATTEMPTS: '1',
  };
}

function run(cmd: string, args: string[], timeoutMs = 20_000): Promise<Ran> {
  return new Promise((resolve) => {
    const proc = spawn(cmd, args, { env: clientEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => { stdout += d.toString('utf8'); });
    proc.stderr.on('data', (d: Buffer) => { stderr += d.toString('utf8'); });
    const timer = setTimeout(() => { stderr += `\n[killed after ${timeoutMs} ms]`; proc.kill('SIGKILL'); }, timeoutMs);
    proc.once('error', (err) => { stderr += `\nspawn error: ${err.message}`; });
    proc.once('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

/** Fails (never skips) with the apt-get line to run when a client is missing. */
async function requireClient(what: 'boto3' | 'aws'): Promise<void> {
  if (what === 'boto3') {
    if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: run \`apt-get install python3 python3-boto3\``);
    const r = await run(PYTHON, ['-c', 'import boto3, botocore']);
    if (r.code !== 0) throw new Error(`${PYTHON} cannot import boto3: run \`apt-get install python3-boto3\`\n${r.stderr.trim()}`);
  } else if (!existsSync(AWS)) {
    throw new Error(`${AWS} is missing: run \`apt-get install awscli\``);
  }
}

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
  it('runs the order workflow with a Python decider and activity worker (test/clients/swf_order.py)', async () => {
    await requireClient('boto3');
    const domain = uniqueDomain('py-order');
    const r = await run(PYTHON, [SCRIPT, endpoint, domain], 40_000);
    expect(r.code, `swf_order.py failed:\n${r.stderr}\n${r.stdout}`).toBe(0);
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
