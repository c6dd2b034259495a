/**
 * A Step Functions activity worker: a state machine with one Task on an activity, a worker that
 * answers it, and an execution started and followed with the typed client (`client.sfn`).
 *
 *   actorflow serve
 *   npx tsx examples/sfn-activity-worker.ts
 */
import { pathToFileURL } from 'node:url';
import { ActorFlowClient, devUser, startSfnActivityWorker } from '../src/index.js';

const ROLE = 'arn:aws:iam::000000000000:role/example';

/** Creates the activity and the machine, runs one execution with a worker; resolves to its description. */
export async function runGreeting(client: ActorFlowClient, name = `greet-${Date.now()}`) {
  const { activityArn } = await client.sfn.createActivity({ name });
  const definition = {
    StartAt: 'Greet',
    States: { Greet: { Type: 'Task', Resource: activityArn, TimeoutSeconds: 60, End: true } },
  };
  const { stateMachineArn } = await client.sfn.createStateMachine({ name, roleArn: ROLE, definition: JSON.stringify(definition) });
  const worker = startSfnActivityWorker(client, {
    activityArn: activityArn!, workerName: 'greeter', pollTimeoutMs: 1000,
    handler: async (input) => ({ greeting: `hello, ${(input as { who: string }).who}` }),
  });
  try {
    const { executionArn } = await client.sfn.startExecution({ stateMachineArn, input: JSON.stringify({ who: 'world' }) });
    for (;;) {
      const d = await client.sfn.describeExecution({ executionArn });
      if (d.status !== 'RUNNING') return d;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await worker.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const client = await ActorFlowClient.connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', auth: devUser('worker') });
  const d = await runGreeting(client);
  console.log(JSON.stringify({ status: d.status, output: d.output }));
  await client.close();
  process.exit(d.status === 'SUCCEEDED' ? 0 : 1);
}
