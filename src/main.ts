import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startEmbeddedNats, type EmbeddedNats } from './embedded-nats.js';
import { startNode } from './server.js';
import { httpOptionsFromCli } from './transport/http-options.js';
import { inspectOptionsFromCli } from './observability/inspector.js';
import { ActorFlowClient } from './sdk/client.js';
import { devUser, natsAuthFromEnv } from './nats/connect-options.js';
import { untilStopSignal } from './stop-signal.js';
import { formatTimeline, registerOrderTypes, startOrderParticipants, ORDER_WORKFLOW } from './demo/order-fulfilment.js';

/**
 * `npm start`: one engine node (on an embedded nats-server unless NATS_URL is set) plus the
 * order-fulfilment demo, then keeps serving until Ctrl-C. `--demo-only` exits after the demo.
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const demoOnly = argv.includes('--demo-only');
  // First, before anything is started (see serve.ts); a Ctrl-C during the demo ends it early.
  let stopRequested = false;
  const stopSignal = untilStopSignal().then(() => { stopRequested = true; });
  let embedded: EmbeddedNats | undefined;
  if (!process.env.NATS_URL) embedded = await startEmbeddedNats();  // AF_NATS_PORT, AF_DURABILITY
  const natsUrl = process.env.NATS_URL ?? embedded!.url;
  // The AWS JSON 1.0 gateway on 127.0.0.1:${AF_HTTP_PORT:-8080} (--http-host/--http-port); not for the one-shot demo.
  const http = demoOnly ? undefined : httpOptionsFromCli(argv);
  // Least privilege: the engine connects as `engine`, the demo's decider and worker as `worker` (nats.conf).
  // With NATS_URL: NATS_USER/NATS_PASSWORD/NATS_CA… for both, AF_DEMO_NATS_USER/AF_DEMO_NATS_PASSWORD… override for the demo.
  const natsAuth = embedded ? devUser('engine') : natsAuthFromEnv();
  const demoAuth = embedded ? devUser('worker') : { ...natsAuthFromEnv(), ...natsAuthFromEnv(process.env, 'AF_DEMO_NATS_') };
  const node = await startNode({ natsUrl, natsAuth, http, inspect: inspectOptionsFromCli(argv) }).catch(async (e: unknown) => { await embedded?.stop(); throw e; });
  const client = await ActorFlowClient.connect({ servers: natsUrl, prefix: node.config.prefix, auth: demoAuth });
  const domain = 'demo';
  await registerOrderTypes(client, domain);
  const participants = startOrderParticipants(client, domain, { pollTimeoutMs: 2000 });
  const workflowId = `order-${Date.now()}`;
  const { runId } = await client.call<{ runId: string }>('StartWorkflowExecution', {
    domain, workflowId, workflowType: ORDER_WORKFLOW, input: JSON.stringify({ orderId: workflowId, amount: 42 }),
  });
  console.log(`started ${workflowId} (run ${runId})`);
  let status = 'OPEN';
  const deadline = Date.now() + 30_000;
  while (status === 'OPEN' && Date.now() < deadline && !stopRequested) {
    await new Promise((r) => setTimeout(r, 50));
    const d = await client.call<{ executionInfo: { executionStatus: string; closeStatus?: string } }>('DescribeWorkflowExecution', { domain, execution: { workflowId, runId } });
    status = d.executionInfo.executionStatus === 'OPEN' ? 'OPEN' : d.executionInfo.closeStatus ?? 'CLOSED';
  }
  const events = await client.history(domain, { workflowId, runId });
  console.log(`\nhistory of ${workflowId}:\n${formatTimeline(events)}\n\nclose status: ${status} (${events.length} events)`);
  const ok = status === 'COMPLETED';
  const shutdown = async () => {
    await participants.stop();
    await client.close();
    await node.stop();
    await embedded?.stop();
  };
  if (demoOnly || stopRequested) {
    await shutdown();
    // Stopped by a signal before serving began: a normal stop. --demo-only reports the demo's outcome.
    return ok || !demoOnly ? 0 : 1;
  }
  console.log('\nengine serving on', natsUrl, `and ${node.http?.url} (AWS JSON 1.0, SimpleWorkflowService)`, '- press Ctrl-C to stop');
  if (node.http) console.log(`web console: ${node.http.url}/console/   readiness: ${node.http.url}/readyz`);
  if (node.inspector) {
    console.log([
      `\nXState inspector: open ${node.inspector.url} in a browser with internet access (the page embeds stately.ai/inspect).`,
      'It replays the demo\'s actors; start another order to watch one live:',
      `  curl -s ${node.http?.url}/ -H 'X-Amz-Target: SimpleWorkflowService.StartWorkflowExecution' -H 'Content-Type: application/x-amz-json-1.0' \\`,
      `    -d '{"domain":"demo","workflowId":"order-'$RANDOM'","workflowType":{"name":"${ORDER_WORKFLOW.name}","version":"${ORDER_WORKFLOW.version}"}}'`,
    ].join('\n'));
  }
  await stopSignal;
  await shutdown();
  return 0;
}

// Runs when started as a program (`tsx src/main.ts`); `actorflow demo` imports main() instead.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then((code) => process.exit(code), (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
