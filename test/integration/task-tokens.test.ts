import { SendTaskSuccessCommand } from '@aws-sdk/client-sfn';
import { RespondActivityTaskCompletedCommand } from '@aws-sdk/client-swf';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFault } from '../../src/protocol/faults.js';
import { encode } from '../../src/protocol/codec.js';
import { startNode, type EngineNode, type StartOptions } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { uniqueDomain } from '../helpers/engine.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { freshName, machineWithActivity, oneTask, sfnClient, waitClosed } from '../helpers/sfn-http.js';
import { swfClient } from '../helpers/swf-http.js';

let server: NatsServerHandle;
let node: EngineNode;
let client: ActorFlowClient;
const extra: EngineNode[] = [];
const start = (o: StartOptions = {}) => startNode({ natsUrl: server.url, partitions: 4, logger: pino({ level: 'silent' }), ...o });
beforeAll(async () => {
  server = await startNatsServer();
  node = await start({ http: { port: 0, accessKeys: {} } });
  client = await ActorFlowClient.connect({ servers: server.url });
});
afterAll(async () => {
  await client?.close();
  for (const n of [...extra, node]) await n?.stop();
  await server?.stop();
});

const WF = { name: 'wf', version: '1' };
const ACT = { name: 'act', version: '1' };
const POLL = { afPollTimeoutMs: 5000 };

async function freshRun(label: string) {
  const domain = uniqueDomain(label);
  await client.ensureDomain(domain);
  await client.call('RegisterWorkflowType', { domain, ...WF, defaultTaskList: { name: 'd' }, defaultChildPolicy: 'TERMINATE',
    defaultExecutionStartToCloseTimeout: '600', defaultTaskStartToCloseTimeout: '60' });
  await client.call('RegisterActivityType', { domain, ...ACT, defaultTaskList: { name: 'a' }, defaultTaskScheduleToStartTimeout: '600',
    defaultTaskStartToCloseTimeout: '600', defaultTaskScheduleToCloseTimeout: '600', defaultTaskHeartbeatTimeout: 'NONE' });
  const { runId } = await client.call('StartWorkflowExecution', { domain, workflowId: 'w', workflowType: WF });
  return { domain, execution: { workflowId: 'w', runId: runId as string } };
}

const scheduleActivity = { decisionType: 'ScheduleActivityTask', scheduleActivityTaskDecisionAttributes: { activityType: ACT, activityId: 'a1', input: 'in' } };

async function faultName(p: Promise<unknown>): Promise<string> {
  try { await p; } catch (err) { return isFault(err) ? err.name : (err as Error).name; }
  return 'no fault';
}

/** Tokens an attacker can make: the pre-HMAC form rebuilt from the history's ids, the same with a made-up MAC, and the real one altered. */
function forgeries(real: string, fields: unknown[]): string[] {
  const old = Buffer.from(encode(fields)).toString('base64url');
  const madeUp = Buffer.concat([Buffer.alloc(16, 7), encode(fields)]).toString('base64url');
  const raw = Buffer.from(real, 'base64url');
  const altered = Buffer.from(raw);
  altered[altered.length - 1] ^= 1; // the startedEventId
  const macFlipped = Buffer.from(raw);
  macFlipped[0] ^= 0x80;
  return [old, madeUp, altered.toString('base64url'), macFlipped.toString('base64url')];
}

describe('task tokens are unforgeable', () => {
  it('refuses forged and altered SWF decision and activity tokens with UnknownResourceFault; the real ones still work', async () => {
    const run = await freshRun('forge');
    const decision = await client.call('PollForDecisionTask', { domain: run.domain, taskList: { name: 'd' }, ...POLL });
    const dFields = [1, run.domain, 'w', run.execution.runId, 'd', decision.events.at(-2).eventId, decision.startedEventId];
    for (const forged of forgeries(decision.taskToken, dFields)) {
      expect(await faultName(client.call('RespondDecisionTaskCompleted', { taskToken: forged, decisions: [] }))).toBe('UnknownResourceFault');
    }
    await client.call('RespondDecisionTaskCompleted', { taskToken: decision.taskToken, decisions: [scheduleActivity] });
    const task = await client.call('PollForActivityTask', { domain: run.domain, taskList: { name: 'a' }, ...POLL });
    // A decision token is no activity token, even though the cluster sealed it.
    expect(await faultName(client.call('RespondActivityTaskCompleted', { taskToken: decision.taskToken }))).toBe('UnknownResourceFault');
    const aFields = [1, run.domain, 'w', run.execution.runId, 'a', task.startedEventId - 1, task.startedEventId];
    for (const forged of forgeries(task.taskToken, aFields)) {
      for (const action of ['RespondActivityTaskCompleted', 'RespondActivityTaskFailed', 'RecordActivityTaskHeartbeat']) {
        expect(await faultName(client.call(action, { taskToken: forged, result: 'forged' })), action).toBe('UnknownResourceFault');
      }
    }
    await client.call('RespondActivityTaskCompleted', { taskToken: task.taskToken, result: 'real' });
    const events = await client.history(run.domain, run.execution);
    expect(events.filter((x) => x.eventType.startsWith('ActivityTask')).map((x) => x.eventType))
      .toEqual(['ActivityTaskScheduled', 'ActivityTaskStarted', 'ActivityTaskCompleted']);
    expect(task.taskToken.length).toBeLessThanOrEqual(1024);
  });

  it('refuses forged and altered Step Functions task tokens with InvalidToken; the real one still works', async () => {
    const sfn = sfnClient(node.http!.port);
    try {
      const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => oneTask(a));
      const { executionArn } = await client.call('StartExecution', { stateMachineArn, name: freshName('x'), input: '{}' });
      const task = await client.call('GetActivityTask', { activityArn, workerName: 'w', ...POLL });
      expect(task.taskToken.length).toBeLessThanOrEqual(2048);
      for (const forged of forgeries(task.taskToken, [1, executionArn, 0, 'root#1'])) {
        for (const action of ['SendTaskSuccess', 'SendTaskFailure', 'SendTaskHeartbeat']) {
          expect(await faultName(client.call(action, { taskToken: forged, output: '{}' })), action).toBe('InvalidToken');
        }
      }
      await sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken, output: '{"ok":true}' }));
      expect((await waitClosed(sfn, executionArn)).status).toBe('SUCCEEDED');
    } finally {
      sfn.destroy();
    }
  });

  it('accepts real tokens after a node restart and on another node (the key is the cluster\'s)', async () => {
    const run = await freshRun('restart');
    const decision = await client.call('PollForDecisionTask', { domain: run.domain, taskList: { name: 'd' }, ...POLL });
    const sfnBefore = sfnClient(node.http!.port);
    const { activityArn, stateMachineArn } = await machineWithActivity(sfnBefore, (a) => oneTask(a));
    sfnBefore.destroy();
    const { executionArn } = await client.call('StartExecution', { stateMachineArn, name: freshName('x'), input: '{}' });
    const sfnTask = await client.call('GetActivityTask', { activityArn, workerName: 'w', ...POLL });

    await node.stop();
    node = await start();
    await client.call('RespondDecisionTaskCompleted', { taskToken: decision.taskToken, decisions: [scheduleActivity] });
    const task = await client.call('PollForActivityTask', { domain: run.domain, taskList: { name: 'a' }, ...POLL });

    // A second node that owns no partition: it checks the token, the owner acts on it.
    const other = await start({ ownPartitions: [], http: { port: 0, accessKeys: {} } });
    extra.push(other);
    const swf = swfClient(other.http!.port);
    const sfn = sfnClient(other.http!.port);
    try {
      await swf.send(new RespondActivityTaskCompletedCommand({ taskToken: task.taskToken, result: 'done' }));
      await sfn.send(new SendTaskSuccessCommand({ taskToken: sfnTask.taskToken, output: '{}' }));
      expect((await waitClosed(sfn, executionArn)).status).toBe('SUCCEEDED');
    } finally {
      swf.destroy();
      sfn.destroy();
    }
    const events = await client.history(run.domain, run.execution);
    expect(events.at(-2)?.eventType).toBe('ActivityTaskCompleted');
  });
});
