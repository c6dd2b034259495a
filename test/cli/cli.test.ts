import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { BIN, ROOT, runCliProcess, type CliResult } from '../helpers/cli-process.js';

/*
 * The `actorflow` CLI as a user runs it: `node bin/actorflow.js …` in a child process against a test
 * engine, checking exit codes (0 ok, 1 error or AWS fault, 2 bad usage), text output and --json output.
 * serve and demo run on a nats-server of their own: two engine nodes must not share one NATS yet.
 */

const run = runCliProcess;
type Result = CliResult;

let e: TestEngine;
const domain = uniqueDomain('cli');
const oldDomain = uniqueDomain('cli-old');
const TYPE = { name: 'CliFlow', version: '1' };
const runIds: Record<string, string> = {};
/** The CLI against the test engine. */
const cli = (...args: string[]) => run([...args, '--nats', e.url]);
const json = (r: Result) => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Record<string, any>;
};
/** A bad-usage answer: exit 2, the problem and the command's usage on stderr, nothing on stdout. */
const usage = (r: Result, problem: RegExp) => {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(problem);
  expect(r.stderr).toMatch(/usage: actorflow/);
  expect(r.stdout).toBe('');
};
const fault = (r: Result, name: string, message?: RegExp) => {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toMatch(new RegExp(`^ERROR ${name}: `, 'm'));
  if (message) expect(r.stderr).toMatch(message);
};

async function start(workflowId: string, tagList: string[] = []): Promise<void> {
  const { runId } = await e.client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId, workflowType: TYPE, tagList });
  runIds[workflowId] = runId;
}

beforeAll(async () => {
  e = await startTestEngine();
  await e.client.ensureDomain(domain);
  await e.client.ensureDomain(oldDomain);
  await e.client.call('DeprecateDomain', { name: oldDomain });
  await e.client.call('RegisterWorkflowType', {
    domain, ...TYPE, defaultTaskList: { name: 'cli-deciders' }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '30',
  });
  await start('wf-blue', ['blue']);
  await start('wf-red', ['red']);
  for (const id of ['wf-p1', 'wf-p2', 'wf-p3']) await start(id);
  await start('wf-done');
  await e.client.call('TerminateWorkflowExecution', { domain, workflowId: 'wf-done', reason: 'set-up' });
  await start('wf-signal');
  await start('wf-kill');
});

afterAll(async () => {
  await e?.stop();
});

describe('help and usage', { timeout: 60_000 }, () => {
  it('prints help, and refuses unknown commands, options and arguments with exit 2', async () => {
    const [help, describeHelp, unknown, badOption] = await Promise.all([
      run(['--help']), run(['describe', '--help']), run(['launch']), cli('domains', '--colour'),
    ]);
    expect(help.code).toBe(0);
    for (const c of ['serve', 'demo', 'domains', 'executions', 'describe', 'history', 'signal', 'terminate', 'machines']) expect(help.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
    expect(describeHelp.code).toBe(0);
    expect(describeHelp.stdout).toMatch(/usage: actorflow describe --domain D --workflow-id W \[--run-id R\]/);
    expect(describeHelp.stdout).toMatch(/--run-id R/);
    usage(unknown, /unknown command "launch"/);
    usage(badOption, /unknown option --colour/);
  });

  it('says plainly when NATS is unreachable or no engine answers', async () => {
    const [down, noEngine] = await Promise.all([
      run(['domains', '--nats', 'nats://127.0.0.1:1']),
      cli('domains', '--prefix', 'nobody'),
    ]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^ERROR cannot reach NATS at nats:\/\/127\.0\.0\.1:1 \(connection refused\)/);
    expect(noEngine.code).toBe(1);
    expect(noEngine.stderr).toMatch(/^ERROR no ActorFlow engine answers on nats:\/\/.* with prefix "nobody"/);
  });
});

describe('domains', { timeout: 60_000 }, () => {
  it('lists registered domains, or deprecated ones with --status', async () => {
    const [text, deprecated, bad] = await Promise.all([
      cli('domains'), cli('domains', '--status', 'DEPRECATED', '--json'), cli('domains', '--status', 'GONE'),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^NAME\s+STATUS\s+DESCRIPTION$/m);
    expect(text.stdout).toMatch(new RegExp(`^${domain}\\s+REGISTERED`, 'm'));
    expect(text.stdout).not.toContain(oldDomain);
    expect(json(deprecated).domainInfos).toEqual(expect.arrayContaining([expect.objectContaining({ name: oldDomain, status: 'DEPRECATED' })]));
    usage(bad, /--status must be one of REGISTERED, DEPRECATED, got "GONE"/);
  });
});

describe('executions', { timeout: 60_000 }, () => {
  const ids = (r: Result) => (json(r).executionInfos as { execution: { workflowId: string } }[]).map((x) => x.execution.workflowId).sort();
  const open = ['wf-blue', 'wf-kill', 'wf-p1', 'wf-p2', 'wf-p3', 'wf-red', 'wf-signal'];

  it('lists open executions as a table, and as JSON following nextPageToken with a progress line on stderr', async () => {
    const [text, paged] = await Promise.all([
      cli('executions', '--domain', domain),
      cli('executions', '--domain', domain, '--page-size', '2', '--json'),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^WORKFLOW ID\s+RUN ID\s+TYPE\s+STATUS\s+STARTED\s+TAGS$/m);
    expect(text.stdout).toMatch(new RegExp(`^wf-blue\\s+${runIds['wf-blue']}\\s+CliFlow:1\\s+OPEN\\s+\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s+blue$`, 'm'));
    expect(text.stdout).not.toMatch(/wf-done/);
    expect(text.stdout).toMatch(/^7 open executions$/m);
    expect(paged.code).toBe(0);
    expect(paged.stderr).toMatch(/^open executions: 2 so far \(page 1\)…$/m);
    expect(paged.stderr).toMatch(/^open executions: 6 so far \(page 3\)…$/m);
    const infos = (JSON.parse(paged.stdout) as { executionInfos: { execution: { workflowId: string } }[] }).executionInfos;
    expect(infos.map((x) => x.execution.workflowId).sort()).toEqual(open);
  });

  it('filters by tag, type, close status and time, and stops at --limit', async () => {
    const hourAgo = new Date(Date.now() - 3600_000).toISOString();
    const [blue, typed, terminated, recent] = await Promise.all([
      cli('executions', '--domain', domain, '--tag', 'blue', '--json'),
      cli('executions', '--domain', domain, '--type', `${TYPE.name}:${TYPE.version}`, '--limit', '2', '--json'),
      cli('executions', '--domain', domain, '--closed', '--status', 'TERMINATED'),
      cli('executions', '--domain', domain, '--closed', '--since', hourAgo, '--json'),
    ]);
    expect(ids(blue)).toEqual(['wf-blue']);
    expect(ids(typed)).toHaveLength(2);
    expect(terminated.code).toBe(0);
    expect(terminated.stdout).toMatch(new RegExp(`^wf-done\\s+${runIds['wf-done']}\\s+CliFlow:1\\s+TERMINATED\\s`, 'm'));
    expect(terminated.stdout).toMatch(/^1 closed execution$/m);
    expect(json(recent).executionInfos).toEqual(expect.arrayContaining([
      expect.objectContaining({ execution: { workflowId: 'wf-done', runId: runIds['wf-done'] }, closeStatus: 'TERMINATED' }),
    ]));
  });

  it('refuses bad input', async () => {
    const [unknown, noDomain, openStatus, twoFilters, badSince] = await Promise.all([
      cli('executions', '--domain', 'no-such-domain'),
      cli('executions'),
      cli('executions', '--domain', domain, '--status', 'COMPLETED'),
      cli('executions', '--domain', domain, '--tag', 'blue', '--workflow-id', 'wf-blue'),
      cli('executions', '--domain', domain, '--since', 'yesterday'),
    ]);
    fault(unknown, 'UnknownResourceFault', /Unknown domain: no-such-domain/);
    expect(unknown.stdout).toBe('');
    usage(noDomain, /missing required option --domain/);
    usage(openStatus, /--status filters closed executions: add --closed/);
    usage(twoFilters, /at most one of --type, --tag, --workflow-id, --status/);
    usage(badSince, /--since must be an ISO 8601 time/);
  });
});

describe('describe and history', { timeout: 60_000 }, () => {
  it('describes the open run without --run-id, else the latest closed run', async () => {
    const [open, openJson, closed] = await Promise.all([
      cli('describe', '--domain', domain, '--workflow-id', 'wf-blue'),
      cli('describe', '--domain', domain, '--workflow-id', 'wf-blue', '--json'),
      cli('describe', '--domain', domain, '--workflow-id', 'wf-done'),
    ]);
    expect(open.code).toBe(0);
    expect(open.stdout).toMatch(new RegExp(`^runId\\s+${runIds['wf-blue']}$`, 'm'));
    expect(open.stdout).toMatch(/^status\s+OPEN$/m);
    expect(open.stdout).toMatch(/^type\s+CliFlow 1$/m);
    expect(open.stdout).toMatch(/^tags\s+blue$/m);
    expect(open.stdout).toMatch(/^taskList\s+cli-deciders$/m);
    expect(open.stdout).toMatch(/^timeouts\s+execution 3600 s, decision task 30 s$/m);
    const d = json(openJson);
    expect(d.executionInfo).toMatchObject({ execution: { workflowId: 'wf-blue', runId: runIds['wf-blue'] }, executionStatus: 'OPEN', tagList: ['blue'] });
    expect(d.openCounts.openDecisionTasks).toBe(1);
    expect(closed.code).toBe(0);
    expect(closed.stdout).toMatch(new RegExp(`^runId\\s+${runIds['wf-done']}$`, 'm'));
    expect(closed.stdout).toMatch(/^status\s+CLOSED TERMINATED$/m);
  });

  it('prints the history as a timeline', async () => {
    const [text, asJson] = await Promise.all([
      cli('history', '--domain', domain, '--workflow-id', 'wf-done'),
      cli('history', '--domain', domain, '--workflow-id', 'wf-done', '--run-id', runIds['wf-done']!, '--json'),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^history of wf-done \\(run ${runIds['wf-done']}\\) in ${domain}: 3 events`, 'm'));
    expect(text.stdout).toMatch(/^ {2}1 {2}\+ {4}0 ms {2}WorkflowExecutionStarted/m);
    expect(text.stdout).toMatch(/^ {2}2 .*DecisionTaskScheduled/m);
    expect(text.stdout).toMatch(/^ {2}3 .*WorkflowExecutionTerminated\s+reason=set-up cause=OPERATOR_INITIATED$/m);
    const h = json(asJson);
    expect(h.execution).toEqual({ workflowId: 'wf-done', runId: runIds['wf-done'] });
    expect((h.events as { eventType: string }[]).map((x) => x.eventType)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled', 'WorkflowExecutionTerminated']);
  });

  it('refuses unknown runs and missing flags', async () => {
    const [unknownRun, unknownWorkflow, noWorkflow, historyUnknown] = await Promise.all([
      cli('describe', '--domain', domain, '--workflow-id', 'wf-blue', '--run-id', 'nope'),
      cli('describe', '--domain', domain, '--workflow-id', 'never-started'),
      cli('describe', '--domain', domain),
      cli('history', '--domain', domain, '--workflow-id', 'wf-blue', '--run-id', 'nope'),
    ]);
    fault(unknownRun, 'UnknownResourceFault', /runId=nope/);
    fault(unknownWorkflow, 'UnknownResourceFault', /no run of workflowId=never-started/);
    usage(noWorkflow, /missing required option --workflow-id/);
    fault(historyUnknown, 'UnknownResourceFault', /runId=nope/);
  });
});

describe('signal and terminate', { timeout: 60_000 }, () => {
  it('signals an open execution, and refuses bad JSON input and closed runs', async () => {
    const [r, badJson, closed] = await Promise.all([
      cli('signal', '--domain', domain, '--workflow-id', 'wf-signal', '--name', 'poke', '--input', '{"n":1}'),
      cli('signal', '--domain', domain, '--workflow-id', 'wf-signal', '--name', 'x', '--input', '{not json'),
      cli('signal', '--domain', domain, '--workflow-id', 'wf-done', '--name', 'late', '--json'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`signaled wf-signal in ${domain}: poke`);
    const events = await e.client.history(domain, { workflowId: 'wf-signal', runId: runIds['wf-signal']! });
    expect(events.filter((x) => x.eventType === 'WorkflowExecutionSignaled').map((x) => x.workflowExecutionSignaledEventAttributes))
      .toEqual([expect.objectContaining({ signalName: 'poke', input: '{"n":1}' })]);
    usage(badJson, /--input must be JSON/);
    fault(closed, 'UnknownResourceFault', /^ERROR UnknownResourceFault: Unknown execution, workflowId = wf-done$/m);
    expect(closed.stdout).toBe('');
  });

  it('terminates with --yes only, then the run is closed', async () => {
    usage(await cli('terminate', '--domain', domain, '--workflow-id', 'wf-kill'), /pass --yes when stdin is not a terminal/);
    const r = await cli('terminate', '--domain', domain, '--workflow-id', 'wf-kill', '--reason', 'from the cli', '--yes', '--json');
    expect(json(r)).toEqual({ terminated: true, domain, workflowId: 'wf-kill' });
    const d = await e.client.call('DescribeWorkflowExecution', { domain, execution: { workflowId: 'wf-kill', runId: runIds['wf-kill'] } });
    expect(d.executionInfo).toMatchObject({ executionStatus: 'CLOSED', closeStatus: 'TERMINATED' });
    const events = await e.client.history(domain, { workflowId: 'wf-kill', runId: runIds['wf-kill']! });
    expect(events.at(-1)?.workflowExecutionTerminatedEventAttributes).toMatchObject({ reason: 'from the cli' });
    fault(await cli('terminate', '--domain', domain, '--workflow-id', 'wf-kill', '--yes'), 'UnknownResourceFault', /^ERROR UnknownResourceFault: Unknown execution, workflowId = wf-kill$/m);
  });
});

describe('machines export', { timeout: 60_000 }, () => {
  it('writes the XState JSON and a Mermaid diagram of each machine', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'actorflow-machines-'));
    try {
      const r = await run(['machines', 'export', '--out', dir, '--json']);
      const files = json(r).files as string[];
      const names = ['workflow-execution', 'decision-task', 'activity-task', 'timer'];
      expect(files.sort()).toEqual(names.flatMap((n) => [join(dir, `${n}.json`), join(dir, `${n}.mmd`)]).sort());
      expect((await readdir(dir)).sort()).toEqual(files.map((f) => f.slice(dir.length + 1)).sort());
      const read = (n: string) => readFile(join(dir, n), 'utf8');
      const ids = await Promise.all(names.map(async (n) => (JSON.parse(await read(`${n}.json`)) as { id: string }).id));
      expect(ids).toEqual(['workflowExecution', 'decisionTask', 'activityTask', 'timer']);

      const wf = await read('workflow-execution.mmd');
      expect(wf.split('\n')[0]).toBe('stateDiagram-v2');
      expect(wf).toMatch(/^ {2}\[\*\] --> open$/m);
      expect(wf).toMatch(/^ {2}state closed \{$/m);
      for (const s of ['completed', 'failed', 'canceled', 'terminated', 'continuedAsNew', 'timedOut']) expect(wf).toMatch(new RegExp(`state "${s}" as closed_${s}$`, 'm'));
      expect(wf).toMatch(/^ {2}open --> closed_timedOut : after startToClose$/m);
      const activity = await read('activity-task.mmd');
      for (const s of ['scheduled', 'started', 'completed', 'failed', 'canceled', 'timedOut']) expect(activity).toMatch(new RegExp(`\\b${s}\\b`));
      expect(activity).toMatch(/^ {2}scheduled --> timedOut : after scheduleToStart \[hasScheduleToStart\]$/m);
      expect(activity).toMatch(/^ {2}scheduled --> timedOut : after scheduleToClose \[hasScheduleToClose\]$/m);
      expect(activity).toMatch(/^ {2}started --> timedOut : after startToClose \[hasStartToClose\]$/m);
      expect(activity).toMatch(/^ {2}started --> timedOut : after heartbeat \[hasHeartbeat\]$/m);
      expect(activity).toMatch(/^ {2}started --> started : Heartbeat \(reenter\)$/m);
      expect(activity).toMatch(/^ {2}scheduled --> started : ActivityTaskStarted$/m);
      const decision = await read('decision-task.mmd');
      expect(decision).toMatch(/^ {2}scheduled --> timedOut : after scheduleToStart \[hasScheduleToStart\]$/m);
      expect(decision).toMatch(/^ {2}started --> timedOut : after startToClose \[hasStartToClose\]$/m);
      const timer = await read('timer.mmd');
      expect(timer).toMatch(/^ {2}started --> fired : after fire$/m);
      expect(timer).toMatch(/^ {2}started --> canceled : TimerCanceled$/m);
      expect(timer).toMatch(/^ {2}fired --> \[\*\]$/m);

      const text = await run(['machines', 'export', '--out', dir]);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(`wrote ${join(dir, 'timer.mmd')}\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a missing subcommand', async () => {
    usage(await run(['machines']), /machines needs a subcommand: export/);
  });
});

describe('serve and demo (on a nats-server of their own)', { timeout: 60_000 }, () => {
  let nats: NatsServerHandle;
  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  it('serve starts an engine node, prints its ready line and stops on SIGTERM with exit 0', async () => {
    const proc = spawn(process.execPath, [BIN, 'serve', '--nats', nats.url, '--http-port', '0'], {
      cwd: ROOT, env: { ...process.env, AF_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const exited = new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
    try {
      const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ready line in 30 s:\n${stdout}\n${stderr}`)), 30_000);
        proc.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          const line = stdout.split('\n').find((l) => l.includes('"ready":true'));
          if (line) {
            clearTimeout(timer);
            resolve(JSON.parse(line) as Record<string, unknown>);
          }
        });
        void exited.then((code) => reject(new Error(`serve exited with ${code}:\n${stderr}`)));
      });
      expect(ready).toMatchObject({ ready: true, nats: nats.url });
      expect(ready.http).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const domains = await run(['domains', '--nats', nats.url]);
      expect(domains.code, domains.stderr).toBe(0);
      expect(domains.stdout.trim()).toBe('no registered domains');
    } finally {
      proc.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('serve refuses a bad port', async () => {
    usage(await run(['serve', '--nats', nats.url, '--http-port', '70000']), /--http-port must be a port number/);
  });

  it('demo runs the order workflow against NATS_URL and exits 0', async () => {
    const r = await run(['demo'], { env: { NATS_URL: nats.url }, timeoutMs: 50_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^started order-\d+ \(run \w+\)$/m);
    expect(r.stdout).toMatch(/WorkflowExecutionCompleted\s+decisionTaskCompletedEventId=\d+ result=order fulfilled/);
    expect(r.stdout).toMatch(/close status: COMPLETED/);
  });

  it('demo says plainly when NATS is unreachable', async () => {
    const r = await run(['demo', '--nats', 'nats://127.0.0.1:1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ERROR cannot reach NATS at nats:\/\/127\.0\.0\.1:1/m);
  });
});
