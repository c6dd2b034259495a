import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startNode } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { Decider } from '../../src/sdk/decider.js';
import { uniqueDomain } from '../helpers/engine.js';
import { freePort } from '../helpers/nats-cluster.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { freshName, SFN_ROLE } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

/**
 * A timer that fires while JetStream is unreachable (found by the chaos run: a Step Functions
 * execution stayed RUNNING after WaitStateEntered for good). Nobody asks for such an execution
 * again, so the engine itself must store the transition once the store is back. SWF runs kept
 * theirs already (their append retried for 8 s and more); the SWF case guards the shared retry.
 */
describe('a timer-driven transition during a NATS outage', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => { for (const f of cleanup.reverse()) await f().catch(() => undefined); });

  /** An engine on its own nats-server; `outage()` kills the server and starts it again (same port and store) `ms` later. */
  const engine = async () => {
    const port = await freePort();
    const first = await startNatsServer({ args: ['-p', String(port)] });
    let second: NatsServerHandle | undefined;
    cleanup.push(async () => { await second?.stop(); await first.stop(); }); // last: the node stops on a live server
    const node = await startNode({ natsUrl: first.url, partitions: 2, logger: pino({ level: process.env.AF_TEST_LOG ?? 'silent' }) });
    cleanup.push(() => node.stop());
    const client = await ActorFlowClient.connect({ servers: first.url });
    cleanup.push(() => client.close());
    const outage = async (ms: number) => {
      first.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, ms));
      second = await startNatsServer({ args: ['-p', String(port), '-sd', first.storeDir] });
    };
    return { client, outage };
  };

  it('SWF: the TimerFired of a timer that fired in the outage is stored when NATS is back, and the run completes', async () => {
    const { client, outage } = await engine();
    const domain = uniqueDomain('outage');
    await client.ensureDomain(domain);
    const type = { name: 'Pause', version: '1' };
    await client.call('RegisterWorkflowType', { domain, ...type, defaultTaskList: { name: 'pause' }, defaultChildPolicy: 'TERMINATE', defaultExecutionStartToCloseTimeout: '300', defaultTaskStartToCloseTimeout: '30' });
    const decider = new Decider(client, { domain, taskList: 'pause', identity: 'pause', pollTimeoutMs: 1000 }, (task) => {
      const fired = task.events.some((e) => e.eventType === 'TimerFired');
      if (fired) return { decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'done' } }] };
      if (task.events.some((e) => e.eventType === 'TimerStarted')) return { decisions: [] };
      return { decisions: [{ decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: 't', startToFireTimeout: '1' } }] };
    }).start();
    cleanup.push(() => decider.stop());
    const run = { workflowId: 'w', runId: (await client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId: 'w', workflowType: type })).runId };
    const types = async () => (await client.history(domain, run)).map((e) => e.eventType);
    await until(async () => (await types()).includes('TimerStarted'), { timeoutMs: 10_000, message: 'TimerStarted' });

    await outage(12_000);
    let status = 'OPEN';
    await until(async () => {
      status = (await client.call('DescribeWorkflowExecution', { domain, execution: run })).executionInfo.executionStatus;
      return status !== 'OPEN';
    }, { timeoutMs: 30_000, intervalMs: 250, message: 'the run closed' }).catch(() => undefined);
    const history = await types();
    expect({ status, fired: history.filter((t) => t === 'TimerFired').length, last: history.at(-1) }).toEqual({ status: 'CLOSED', fired: 1, last: 'WorkflowExecutionCompleted' });
  }, 90_000);

  it('SFN: the Wait that ended in the outage is stored when NATS is back, and the execution succeeds', async () => {
    const { client, outage } = await engine();
    const definition = { StartAt: 'Pause', States: { Pause: { Type: 'Wait', Seconds: 1, Next: 'Done' }, Done: { Type: 'Pass', Result: 'done', End: true } } };
    const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', { name: freshName('outage'), roleArn: SFN_ROLE, definition: JSON.stringify(definition) });
    const { executionArn } = await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, input: '{}' });
    const types = async () => (await client.call<{ events: { type: string }[] }>('GetExecutionHistory', { executionArn })).events.map((e) => e.type);
    await until(async () => (await types()).includes('WaitStateEntered'), { timeoutMs: 5000, message: 'WaitStateEntered' });

    // The Wait ends 1 s later, with no server to store it; the server comes back 12 s later.
    await outage(12_000);

    let status = 'RUNNING';
    await until(async () => {
      status = (await client.call<{ status: string }>('DescribeExecution', { executionArn })).status;
      return status !== 'RUNNING';
    }, { timeoutMs: 20_000, intervalMs: 250, message: 'the execution ended' }).catch(() => undefined);
    expect({ status, types: await types() }).toEqual({
      status: 'SUCCEEDED',
      types: ['ExecutionStarted', 'WaitStateEntered', 'WaitStateExited', 'PassStateEntered', 'PassStateExited', 'ExecutionSucceeded'],
    });
  }, 60_000);
});
