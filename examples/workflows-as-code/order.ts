/**
 * The order-fulfilment workflow of the SWF developer guide as code: four activities in a row, each
 * given the order as the step before left it. `actorflow replay --workflow examples/workflows-as-code/order.ts
 * --history h.json` checks a recorded history against it.
 */
import { defineActivity, defineWorkflow } from '../../src/workflow/index.js';

type Order = Record<string, unknown>;

const step = (name: string) => defineActivity({ name, version: '1.0', taskList: 'order-activities', startToCloseTimeout: '60s' },
  (order: Order): Order => ({ ...order, [name]: 'ok' }));

export const verifyOrder = step('VerifyOrder');
export const chargeCreditCard = step('ChargeCreditCard');
export const shipOrder = step('ShipOrder');
export const recordCompletion = step('RecordCompletion');

export const orderWorkflow = defineWorkflow({ name: 'OrderFulfillment', version: '1.0', taskList: 'order-decisions' }, async (wf, order: Order) => {
  const verified = await wf.activity(verifyOrder, order);
  const charged = await wf.activity(chargeCreditCard, verified);
  const shipped = await wf.activity(shipOrder, charged);
  await wf.activity(recordCompletion, shipped);
  return 'order fulfilled';
});
