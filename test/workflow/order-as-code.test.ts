import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_STEPS, ORDER_WORKFLOW, orderHandlers, registerOrderTypes, startOrderParticipants } from '../../src/demo/order-fulfilment.js';
import { defineActivity, defineWorkflow, startWorkflowWorker } from '../../src/workflow/index.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { closedHistory, shape, start } from './helpers.js';

// The order workflow of the demo, as code: each step's result is the next step's input.
const orderAsCode = defineWorkflow({ ...ORDER_WORKFLOW, taskList: 'order-decisions' }, async (wf, order: unknown) => {
  let current = order;
  for (const step of ORDER_STEPS) current = await wf.activity(step, current);
  return 'order fulfilled';
});
const handlers = orderHandlers();
const orderActivities = ORDER_STEPS.map((name) => defineActivity({ name, version: '1.0' }, (input: unknown) => JSON.parse(handlers[name]!({ input: JSON.stringify(input) }) as string)));

let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.stop(); });

describe('the order workflow as code', () => {
  it('records the 29-event history the hand-written decider records', async () => {
    const byHand = uniqueDomain('hand');
    await registerOrderTypes(e.client, byHand);
    const participants = startOrderParticipants(e.client, byHand, { pollTimeoutMs: 1000 });
    const handRun = await start(e.client, byHand, 'order-1', ORDER_WORKFLOW, '{"orderId":7}');
    const handHistory = await closedHistory(e.client, byHand, handRun);
    await participants.stop();

    const asCode = uniqueDomain('code');
    await registerOrderTypes(e.client, asCode);
    const worker = startWorkflowWorker(e.client, { domain: asCode, taskList: 'order-decisions', activityTaskList: 'order-activities', workflows: [orderAsCode], activities: orderActivities, pollTimeoutMs: 1000 });
    try {
      const codeRun = await start(e.client, asCode, 'order-1', ORDER_WORKFLOW, '{"orderId":7}');
      const codeHistory = await closedHistory(e.client, asCode, codeRun);
      expect(handHistory).toHaveLength(29);
      expect(shape(codeHistory)).toEqual(shape(handHistory));
      expect(codeHistory.at(-1)!.eventType).toBe('WorkflowExecutionCompleted');
    } finally {
      await worker.stop();
    }
  });
});
