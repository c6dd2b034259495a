import { beforeAll, describe, expect, it } from 'vitest';
import { ActivityWorker } from '../../src/sdk/activity-worker.js';
import { SWF_ANSWER, sendAnswer } from '../../src/sdk/answer.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { Decider } from '../../src/sdk/decider.js';
import { compact, uniqueDomain, useNodesOnOneNats } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

/**
 * The SWF workers answer while no engine node serves the API (the node that handed out the task
 * stopped; another starts on the same NATS a little later): the answer is sent again until it lands,
 * and it lands once.
 */
const env = useNodesOnOneNats();
const { nodes, startEngine } = env;
let client: ActorFlowClient;
/** Stops the serving node, runs `whileDown` (a worker answering now), then starts another node after a while. */
async function replaceNode(whileDown: () => void): Promise<void> {
  const node = nodes.pop()!;
  await node.stop();
  whileDown();
  await new Promise((r) => setTimeout(r, 1500));
  await startEngine();
}
beforeAll(async () => {
  client = env.client;
  await startEngine();
});

const WF = { name: 'resend-wf', version: '1' };
const ACT = { name: 'resend-act', version: '1' };

function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((r) => { open = r; });
  return { open, opened };
}

describe('SDK answers lost with a stopping engine node', () => {
  it('the activity worker and the decider send their answers again until a new node takes them, once each', async () => {
    const domain = uniqueDomain('resend');
    await client.ensureDomain(domain);
    await client.call('RegisterWorkflowType', {
      domain, ...WF, defaultTaskList: { name: 'deciders' }, defaultChildPolicy: 'TERMINATE',
      defaultExecutionStartToCloseTimeout: '120', defaultTaskStartToCloseTimeout: '60',
    });
    await client.call('RegisterActivityType', {
      domain, ...ACT, defaultTaskList: { name: 'workers' }, defaultTaskScheduleToStartTimeout: '60',
      defaultTaskStartToCloseTimeout: '60', defaultTaskScheduleToCloseTimeout: '120', defaultTaskHeartbeatTimeout: 'NONE',
    });
    const activityGate = gate();
    const decisionGate = gate();
    let inSecondDecision = false;
    // Polls fail while no node serves: those errors are expected and not what this test is about.
    const errors: unknown[] = [];
    const decider = new Decider(client, { domain, taskList: 'deciders', pollTimeoutMs: 1000, onError: (x) => errors.push(x) }, async (task) => {
      if (!task.events.some((x) => x.eventType === 'ActivityTaskCompleted')) {
        return { decisions: [{ decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: ACT, activityId: 'a1', input: 'parcel' } }] };
      }
      inSecondDecision = true;
      await decisionGate.opened;
      return { decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'shipped' } }] };
    }).start();
    let handled = 0;
    const worker = new ActivityWorker(client, { domain, taskList: 'workers', pollTimeoutMs: 1000, onError: (x) => errors.push(x) }, {
      [ACT.name]: async (t) => { handled++; await activityGate.opened; return `done:${t.input}`; },
    }).start();
    try {
      const workflowId = 'w1';
      const { runId } = await client.call('StartWorkflowExecution', { domain, workflowId, workflowType: WF });
      const history = () => client.history(domain, { workflowId, runId });
      const has = async (type: string) => (await history()).some((x) => x.eventType === type);

      await until(() => has('ActivityTaskStarted'), { timeoutMs: 15_000, message: 'activity started' });
      await replaceNode(() => activityGate.open());
      await until(() => has('ActivityTaskCompleted'), { timeoutMs: 30_000, message: 'activity answer landed on the new node' });

      await until(() => inSecondDecision, { timeoutMs: 15_000, message: 'second decision task in the decider' });
      await replaceNode(() => decisionGate.open());
      await until(() => has('WorkflowExecutionCompleted'), { timeoutMs: 30_000, message: 'decision answer landed on the new node' });

      expect(compact(await history())).toBe([
        '1 WorkflowExecutionStarted', '2 DecisionTaskScheduled', '3 DecisionTaskStarted', '4 DecisionTaskCompleted',
        '5 ActivityTaskScheduled', '6 ActivityTaskStarted', '7 ActivityTaskCompleted', '8 DecisionTaskScheduled',
        '9 DecisionTaskStarted', '10 DecisionTaskCompleted', '11 WorkflowExecutionCompleted',
      ].join(' / '));
      expect(handled).toBe(1);
    } finally {
      activityGate.open();
      decisionGate.open();
      await Promise.all([decider.stop(), worker.stop()]);
    }
  }, 120_000);

  it('with no engine at all, resending ends when the worker stops (after its grace) or gives up', async () => {
    // Its own prefix: no engine node listens there.
    const lonely = await ActorFlowClient.connect({ servers: env.url, prefix: 'nobody' });
    try {
      const stopping = new AbortController();
      let t0 = Date.now();
      const answer = sendAnswer(lonely, 'RespondActivityTaskCompleted', { taskToken: 't', result: 'r' }, { ...SWF_ANSWER, stopping: stopping.signal, stopGraceMs: 1000 });
      const settled = answer.catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 1500));
      expect(await Promise.race([settled.then(() => 'settled'), Promise.resolve('pending')])).toBe('pending');
      stopping.abort();
      expect(await settled).toMatchObject({ message: expect.stringContaining('no responders') });
      expect(Date.now() - t0).toBeLessThan(1500 + 1000 + 6000);
      t0 = Date.now();
      await expect(sendAnswer(lonely, 'RespondActivityTaskCompleted', { taskToken: 't' }, { ...SWF_ANSWER, giveUpMs: 1000 })).rejects.toMatchObject({ message: expect.stringContaining('no responders') });
      expect(Date.now() - t0).toBeLessThan(1000 + 6000);
    } finally {
      await lonely.close();
    }
  }, 60_000);
});
