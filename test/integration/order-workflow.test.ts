import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOrderTypes, startOrderParticipants, ORDER_WORKFLOW } from '../../src/demo/order-fulfilment.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { until } from '../helpers/until.js';
import { expectOrderHistory } from '../helpers/order-history.js';

let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e.stop(); });

describe('order fulfilment end to end', () => {
  it('runs the SWF sequence of 29 events with the right cross-references', async () => {
    const domain = uniqueDomain('order');
    await registerOrderTypes(e.client, domain);
    const p = startOrderParticipants(e.client, domain, { pollTimeoutMs: 1000 });
    try {
      const { runId } = await e.client.call('StartWorkflowExecution', { domain, workflowId: 'order-1', workflowType: ORDER_WORKFLOW, input: '{"orderId":1}' });
      await until(async () => (await e.client.call('DescribeWorkflowExecution', { domain, execution: { workflowId: 'order-1', runId } })).executionInfo.executionStatus === 'CLOSED');
      const events = await e.client.history(domain, { workflowId: 'order-1', runId });
      expectOrderHistory(events);
      const d = await e.client.call('DescribeWorkflowExecution', { domain, execution: { workflowId: 'order-1', runId } });
      expect(d.executionInfo.closeStatus).toBe('COMPLETED');
      expect(d.openCounts).toMatchObject({ openActivityTasks: 0, openDecisionTasks: 0, openTimers: 0 });
      // The workflowId is free again once the run closed.
      const again = await e.client.call('StartWorkflowExecution', { domain, workflowId: 'order-1', workflowType: ORDER_WORKFLOW });
      expect(again.runId).not.toBe(runId);
      await until(async () => (await e.client.call('DescribeWorkflowExecution', { domain, execution: { workflowId: 'order-1', runId: again.runId } })).executionInfo.executionStatus === 'CLOSED');
    } finally {
      await p.stop();
    }
  });

  it('hands a newly scheduled task to a waiting poller at once, not after a polling interval', async () => {
    const domain = uniqueDomain('instant');
    await registerOrderTypes(e.client, domain);
    const poll = e.client.call('PollForDecisionTask', { domain, taskList: { name: 'order-decisions' }, identity: 'waiting' });
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    await e.client.call('StartWorkflowExecution', { domain, workflowId: 'w', workflowType: ORDER_WORKFLOW });
    const task = await poll;
    expect(task.taskToken).toBeTruthy();
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(task.events.map((x: { eventType: string }) => x.eventType)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled', 'DecisionTaskStarted']);
    expect(task.previousStartedEventId).toBe(0);
  });

  it('answers an empty poll without a task token', async () => {
    const domain = uniqueDomain('empty');
    await registerOrderTypes(e.client, domain);
    const t0 = Date.now();
    const r = await e.client.call('PollForActivityTask', { domain, taskList: { name: 'nobody' }, afPollTimeoutMs: 1000 });
    expect(r.taskToken).toBeUndefined();
    expect(r.startedEventId).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it('refuses a second open run of one workflowId', async () => {
    const domain = uniqueDomain('dup');
    await registerOrderTypes(e.client, domain);
    await e.client.call('StartWorkflowExecution', { domain, workflowId: 'same', workflowType: ORDER_WORKFLOW });
    await expect(e.client.call('StartWorkflowExecution', { domain, workflowId: 'same', workflowType: ORDER_WORKFLOW }))
      .rejects.toMatchObject({ name: 'WorkflowExecutionAlreadyStartedFault' });
  });
});
