import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { fault, ok, okJson, usage } from './sfn-helpers.js';

/*
 * `actorflow sfn …` as a user runs it (node bin/actorflow.js in a child process) against a test
 * engine: state-machines, executions, describe, history, start (--wait), stop. Each with a good and
 * a bad input; exit codes as the SWF commands': 0 ok, 1 error or AWS fault, 2 bad usage.
 */
let e: TestEngine;
const tag = `${process.pid}`;
const ROLE = 'arn:aws:iam::000000000000:role/cli';
const arns: Record<string, string> = {};
const cli = (...args: string[]) => runCliProcess([...args, '--nats', e.url]);
const call = <T = Record<string, any>>(action: string, input: object) => e.client.call<T>(action, input);
const start = async (machine: string, input = '{}') => (await call<{ executionArn: string }>('StartExecution', { stateMachineArn: arns[machine]!, input })).executionArn;

beforeAll(async () => {
  e = await startTestEngine();
  const create = async (name: string, definition: object) => {
    arns[name] = (await call<{ stateMachineArn: string }>('CreateStateMachine', { name: `${name}-${tag}`, roleArn: ROLE, definition: JSON.stringify(definition) })).stateMachineArn;
  };
  await create('naps', { StartAt: 'Prepare', States: { Prepare: { Type: 'Pass', Result: { ready: true }, Next: 'Nap' }, Nap: { Type: 'Wait', Seconds: 1, Next: 'Done' }, Done: { Type: 'Succeed' } } });
  await create('breaks', { StartAt: 'Broken', States: { Broken: { Type: 'Fail', Error: 'Cli.Broken', Cause: 'on purpose' } } });
  await create('sleeps', { StartAt: 'Long', States: { Long: { Type: 'Wait', Seconds: 3600, End: true } } });
}, 30_000);
afterAll(async () => { await e?.stop(); });

describe('actorflow sfn', { timeout: 60_000 }, () => {
  it('state-machines: a table, JSON paged with --page-size; a bad --page-size is bad usage', async () => {
    const [text, paged, bad, help] = await Promise.all([
      cli('sfn', 'state-machines'), cli('sfn', 'state-machines', '--page-size', '1', '--json'), cli('sfn', 'state-machines', '--page-size', '0'),
      cli('sfn', 'state-machines', '--help'),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^NAME\s+TYPE\s+CREATED\s+ARN$/m);
    expect(text.stdout).toMatch(new RegExp(`^naps-${tag}\\s+STANDARD\\s+\\d{4}-\\S+Z\\s+${arns.naps!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    expect(paged.code).toBe(0);
    expect(paged.stderr).toMatch(/^state machines: 2 so far \(page 2\)…$/m);
    expect((JSON.parse(paged.stdout) as { stateMachines: { name: string }[] }).stateMachines.map((m) => m.name)).toEqual([`breaks-${tag}`, `naps-${tag}`, `sleeps-${tag}`]);
    usage(bad, /--page-size must be a positive integer, got "0"/);
    expect(ok(help)).toMatch(/usage: actorflow sfn state-machines \[--limit N\] \[--page-size N\]/);
  });

  it('executions: by name or ARN, filtered by status, limited; an unknown state machine is StateMachineDoesNotExist', async () => {
    const a = await start('sleeps');
    const b = await start('sleeps');
    await call('StopExecution', { executionArn: b });
    const [all, running, limited, unknown, badStatus] = await Promise.all([
      cli('sfn', 'executions', '--state-machine', `sleeps-${tag}`, '--json'),
      cli('sfn', 'executions', '--state-machine', arns.sleeps!, '--status', 'RUNNING'),
      cli('sfn', 'executions', '--state-machine', arns.sleeps!, '--limit', '1', '--json'),
      cli('sfn', 'executions', '--state-machine', 'nope'),
      cli('sfn', 'executions', '--state-machine', arns.sleeps!, '--status', 'DONE'),
    ]);
    const byArn = new Map((okJson(all).executions as { executionArn: string; status: string }[]).map((x) => [x.executionArn, x.status]));
    expect(byArn.get(a)).toBe('RUNNING');
    expect(byArn.get(b)).toBe('ABORTED');
    const runningText = ok(running);
    expect(runningText).toContain(a);
    expect(runningText).not.toContain(b);
    expect(okJson(limited).executions).toHaveLength(1);
    fault(unknown, 'StateMachineDoesNotExist', /no state machine named "nope"/);
    usage(badStatus, /--status must be one of RUNNING, SUCCEEDED/);
  });

  it('start --wait follows the execution and prints its history as a timeline; a bad --input is bad usage', async () => {
    const [good, badInput] = await Promise.all([
      cli('sfn', 'start', '--state-machine', `naps-${tag}`, '--name', `cli-run-${tag}`, '--input', '{"order":1}', '--wait'),
      cli('sfn', 'start', '--state-machine', `naps-${tag}`, '--input', '{order'),
    ]);
    const out = ok(good);
    expect(out).toMatch(new RegExp(`^started arn:aws:states:.*:execution:naps-${tag}:cli-run-${tag}$`, 'm'));
    expect(out).toMatch(/^ {2}1 {2}\+ {5}0 ms {2}ExecutionStarted +input=\{"order":1\}$/m);
    expect(out).toMatch(/^ {2}4 .* WaitStateEntered +name=Nap input=\{"ready":true\}$/m);
    expect(out).toMatch(/^ {2}\d .* SucceedStateEntered +name=Done/m);
    expect(out).toMatch(/^SUCCEEDED output=\{"ready":true\}$/m);
    const lines = out.split('\n').filter((l) => /^ +\d+ {2}\+/.test(l)).map((l) => Number(l.trim().split(/\s+/)[0]));
    expect(lines).toEqual([...lines.keys()].map((i) => i + 1)); // every event once, in order
    usage(badInput, /--input must be JSON/);
  });

  it('start --wait exits 1 when the execution fails; start without --wait prints the ARN; --json', async () => {
    const [failed, plain] = await Promise.all([
      cli('sfn', 'start', '--state-machine', arns.breaks!, '--wait', '--json'),
      cli('sfn', 'start', '--state-machine', arns.naps!, '--json'),
    ]);
    expect(failed.code).toBe(1);
    const f = JSON.parse(failed.stdout) as { status: string; error: string; events: { type: string }[] };
    expect(f).toMatchObject({ status: 'FAILED', error: 'Cli.Broken' });
    expect(f.events.at(-1)!.type).toBe('ExecutionFailed');
    expect(okJson(plain).executionArn).toMatch(/:execution:naps-/);
  });

  it('describe and history of an execution (and describe --state-machine); bad ARNs are AWS faults', async () => {
    const arn = await start('breaks');
    const [text, json, machine, history, historyJson, neither, badArn, missing] = await Promise.all([
      cli('sfn', 'describe', '--execution', arn), cli('sfn', 'describe', '--execution', arn, '--json'),
      cli('sfn', 'describe', '--state-machine', `naps-${tag}`), cli('sfn', 'history', '--execution', arn), cli('sfn', 'history', '--execution', arn, '--json'),
      cli('sfn', 'describe'), cli('sfn', 'describe', '--execution', 'not-an-arn'), cli('sfn', 'history', '--execution', `${arn}-gone`),
    ]);
    expect(ok(text)).toMatch(/^status +FAILED$/m);
    expect(text.stdout).toMatch(/^error +Cli\.Broken$/m);
    expect(okJson(json)).toMatchObject({ executionArn: arn, status: 'FAILED', cause: 'on purpose' });
    expect(ok(machine)).toMatch(/^type +STANDARD$/m);
    expect(machine.stdout).toContain('"Type": "Wait"');
    expect(ok(history)).toMatch(/^history of .*\(FAILED\): 3 events, started \d{4}-/m);
    expect(history.stdout).toMatch(/^ {2}3 .* ExecutionFailed +error=Cli\.Broken cause=on purpose$/m);
    expect((okJson(historyJson).events as { type: string }[]).map((x) => x.type)).toEqual(['ExecutionStarted', 'FailStateEntered', 'ExecutionFailed']);
    usage(neither, /give one of --execution and --state-machine/);
    fault(badArn, 'InvalidArn');
    fault(missing, 'ExecutionDoesNotExist');
  });

  it('stop --yes aborts a running execution; without --yes (no terminal) it is bad usage and stops nothing', async () => {
    const arn = await start('sleeps');
    const refused = await cli('sfn', 'stop', '--execution', arn);
    usage(refused, /stop asks for confirmation: pass --yes/);
    expect((await call<{ status: string }>('DescribeExecution', { executionArn: arn })).status).toBe('RUNNING');
    const stopped = await cli('sfn', 'stop', '--execution', arn, '--error', 'Cli.Stop', '--cause', 'from the test', '--yes');
    expect(ok(stopped)).toMatch(new RegExp(`^stopped ${arn.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at \\d{4}-`));
    expect(await call('DescribeExecution', { executionArn: arn })).toMatchObject({ status: 'ABORTED', error: 'Cli.Stop', cause: 'from the test' });
    const again = await cli('sfn', 'stop', '--execution', 'arn:aws:states:us-east-1:000000000000:execution:nope:x', '--yes');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^ERROR \w+: /);
  });

  it('the sfn group: --help lists its commands; an unknown one is bad usage', async () => {
    const [help, unknown, none] = await Promise.all([cli('sfn', '--help'), cli('sfn', 'launch'), cli('sfn')]);
    for (const c of ['state-machines', 'executions', 'describe', 'history', 'start', 'stop', 'send-task-success', 'send-task-failure', 'heartbeat']) {
      expect(ok(help)).toMatch(new RegExp(`^  ${c} `, 'm'));
    }
    usage(unknown, /unknown sfn command "launch"/);
    usage(none, /no sfn command given/);
  });
});
