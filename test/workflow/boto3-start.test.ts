import { afterAll, beforeAll, expect, it } from 'vitest';
import { registerOrderTypes } from '../../src/demo/order-fulfilment.js';
import { startWorkflowWorker } from '../../src/workflow/index.js';
import { chargeCreditCard, orderWorkflow, recordCompletion, shipOrder, verifyOrder } from '../../examples/workflows-as-code/order.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { PYTHON, requireClient, run } from '../helpers/external-clients.js';

// boto3 starts the run and reads its history over HTTP; a workflow written as code decides it over NATS.
const SCRIPT = `
import json, sys, time, boto3
swf = boto3.client("swf", endpoint_url=sys.argv[1], region_name="us-east-1", aws_access_key_id="AKIDCLITEST", aws_secret_access_key="cli-test-secret")
domain = sys.argv[2]
run = swf.start_workflow_execution(domain=domain, workflowId="from-boto3", workflowType={"name": "OrderFulfillment", "version": "1.0"}, input='{"orderId": 9}')
execution = {"workflowId": "from-boto3", "runId": run["runId"]}
for _ in range(400):
    info = swf.describe_workflow_execution(domain=domain, execution=execution)["executionInfo"]
    if info["executionStatus"] == "CLOSED":
        break
    time.sleep(0.05)
events = swf.get_workflow_execution_history(domain=domain, execution=execution)["events"]
print(json.dumps({"closeStatus": info.get("closeStatus"), "types": [e["eventType"] for e in events],
                  "result": events[-1].get("workflowExecutionCompletedEventAttributes", {}).get("result")}))
`;

let e: TestEngine;
beforeAll(async () => { e = await startTestEngine({ http: { host: '127.0.0.1', port: 0, accessKeys: { AKIDCLITEST: 'cli-test-secret' } } }); });
afterAll(async () => { await e?.stop(); });

it('a run boto3 starts is served by a workflow written as code, and boto3 reads an ordinary history', async () => {
  await requireClient('boto3');
  const domain = uniqueDomain('boto3-code');
  await registerOrderTypes(e.client, domain);
  const activities = [verifyOrder, chargeCreditCard, shipOrder, recordCompletion];
  const worker = startWorkflowWorker(e.client, { domain, taskList: 'order-decisions', activityTaskList: 'order-activities', workflows: [orderWorkflow], activities, pollTimeoutMs: 1000 });
  try {
    const r = await run(PYTHON, ['-c', SCRIPT, e.node.http!.url, domain], 40_000);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { closeStatus: string; types: string[]; result: string };
    expect(out.closeStatus).toBe('COMPLETED');
    expect(out.types).toHaveLength(29);
    expect(out.types.filter((t) => t === 'ActivityTaskCompleted')).toHaveLength(4);
    expect(out.result).toBe('order fulfilled');
  } finally {
    await worker.stop();
  }
}, 45_000);
