import { jetstreamManager } from '@nats-io/jetstream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { startNatsServer } from '../helpers/nats-server.js';
import { until } from '../helpers/until.js';

/* Visibility while executions open and close concurrently, and a node reading its own writes. */

type Obj = Record<string, any>;
let e: TestEngine;
const domain = uniqueDomain('churn');
const WF = { name: 'Churn', version: '1' };
const ALL = { startTimeFilter: { oldestDate: 0 } };
const call = <T = Obj>(action: string, input: object): Promise<T> => e.client.call<T>(action, { domain, ...input });

beforeAll(async () => {
  e = await startTestEngine();
  await e.client.ensureDomain(domain);
  await call('RegisterWorkflowType', { ...WF, defaultChildPolicy: 'TERMINATE', defaultExecutionStartToCloseTimeout: '600', defaultTaskStartToCloseTimeout: '30' });
});
afterAll(async () => { await e?.stop(); });

const closeDecision = (workflowId: string) => (Number(workflowId.split('-')[1]) % 2 === 0
  ? { decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: {} }
  : { decisionType: 'FailWorkflowExecution', failWorkflowExecutionDecisionAttributes: { reason: 'odd' } });

describe('visibility under concurrent starts and closes', () => {
  it('never shows a run twice or in the wrong list, never loses a closed run, and ends exact', async () => {
    const N = 200;
    let stop = false;
    const deciders = Array.from({ length: 3 }, async () => {
      while (!stop) {
        const t = await call('PollForDecisionTask', { taskList: { name: 'churn' }, afPollTimeoutMs: 1000 });
        if (t.taskToken) await call('RespondDecisionTaskCompleted', { taskToken: t.taskToken, decisions: [closeDecision(t.workflowExecution.workflowId)] });
      }
    });
    const started = new Map<string, string>();
    const seenClosed = new Set<string>();
    let watching = true;
    let rounds = 0;
    const watcher = (async () => {
      while (watching) {
        const open: Obj[] = (await call('ListOpenWorkflowExecutions', ALL)).executionInfos;
        const closed: Obj[] = (await call('ListClosedWorkflowExecutions', ALL)).executionInfos;
        const openIds = open.map((i) => i.execution.runId);
        const closedIds = closed.map((i) => i.execution.runId);
        expect(new Set(openIds).size).toBe(openIds.length);
        expect(new Set(closedIds).size).toBe(closedIds.length);
        expect(open.every((i) => i.executionStatus === 'OPEN' && i.closeStatus === undefined)).toBe(true);
        expect(closed.every((i) => i.executionStatus === 'CLOSED' && typeof i.closeTimestamp === 'number')).toBe(true);
        // Once closed, always closed: no run seen closed comes back open or disappears.
        for (const id of seenClosed) expect(closedIds).toContain(id);
        for (const id of openIds) expect(seenClosed.has(id)).toBe(false);
        for (const id of closedIds) seenClosed.add(id);
        rounds++;
      }
    })();
    let next = 0;
    await Promise.all(Array.from({ length: 6 }, async () => {
      while (next < N) {
        const workflowId = `w-${next++}`;
        const { runId } = await call('StartWorkflowExecution', { workflowId, workflowType: WF, taskList: { name: 'churn' } });
        started.set(runId, workflowId);
        // Read your own write: the run is listed at once (open, or closed already by a decider).
        const o = (await call('ListOpenWorkflowExecutions', { ...ALL, executionFilter: { workflowId } })).executionInfos;
        const c = (await call('ListClosedWorkflowExecutions', { ...ALL, executionFilter: { workflowId } })).executionInfos;
        expect([...o, ...c].map((i: Obj) => i.execution.runId)).toContain(runId);
      }
    }));
    await until(async () => (await call('CountClosedWorkflowExecutions', ALL)).count === N, { timeoutMs: 20_000 });
    watching = false;
    await watcher;
    stop = true;
    await Promise.all(deciders);
    expect(rounds).toBeGreaterThan(3);
    expect(await call('CountOpenWorkflowExecutions', ALL)).toEqual({ count: 0, truncated: false });
    const closed: Obj[] = (await call('ListClosedWorkflowExecutions', ALL)).executionInfos;
    expect(new Set(closed.map((i) => i.execution.runId))).toEqual(new Set(started.keys()));
    for (const i of closed) {
      expect(i.execution.workflowId).toBe(started.get(i.execution.runId));
      expect(i.closeStatus).toBe(Number(i.execution.workflowId.split('-')[1]) % 2 === 0 ? 'COMPLETED' : 'FAILED');
    }
    expect((await call('CountClosedWorkflowExecutions', { ...ALL, closeStatusFilter: { status: 'FAILED' } })).count).toBe(N / 2);
  }, 60_000);

  it('shows a close as soon as the decision that closed the run is answered', async () => {
    const workflowId = 'rw-1';
    const { runId } = await call('StartWorkflowExecution', { workflowId, workflowType: WF, taskList: { name: 'rw' } });
    const t = await call('PollForDecisionTask', { taskList: { name: 'rw' }, afPollTimeoutMs: 2000 });
    await call('RespondDecisionTaskCompleted', { taskToken: t.taskToken, decisions: [closeDecision('rw-2')] });
    const closed = (await call('ListClosedWorkflowExecutions', { closeTimeFilter: { oldestDate: 0 }, executionFilter: { workflowId } })).executionInfos;
    expect(closed).toMatchObject([{ execution: { workflowId, runId }, executionStatus: 'CLOSED', closeStatus: 'COMPLETED' }]);
    expect((await call('CountOpenWorkflowExecutions', { ...ALL, executionFilter: { workflowId } })).count).toBe(0);
  });

  it('writes a record lost before a crash again when the restarted node recovers the run', async () => {
    const server = await startNatsServer();
    const log = pino({ level: 'silent' });
    const c = await ActorFlowClient.connect({ servers: server.url });
    try {
      let node = await startNode({ natsUrl: server.url, partitions: 4, logger: log });
      const d = uniqueDomain('lost');
      await c.ensureDomain(d);
      await c.call('RegisterWorkflowType', { domain: d, ...WF, defaultChildPolicy: 'TERMINATE', defaultExecutionStartToCloseTimeout: '600', defaultTaskStartToCloseTimeout: '30' });
      const { runId } = await c.call('StartWorkflowExecution', { domain: d, workflowId: 'lost-1', workflowType: WF, taskList: { name: 'nobody' } });
      await node.stop();
      // As if the node had died between appending the start and writing its visibility record.
      const jsm = await jetstreamManager(c.nc);
      await jsm.streams.purge(node.nats.subjects.streams.visibility, { filter: node.nats.subjects.visibility(d, runId) });
      node = await startNode({ natsUrl: server.url, partitions: 4, logger: log });
      try {
        const open = (await c.call('ListOpenWorkflowExecutions', { domain: d, ...ALL })).executionInfos;
        expect(open).toMatchObject([{ execution: { workflowId: 'lost-1', runId }, executionStatus: 'OPEN' }]);
      } finally {
        await node.stop();
      }
    } finally {
      await c.close();
      await server.stop();
    }
  });
});
