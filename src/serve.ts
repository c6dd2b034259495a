import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startEmbeddedNats, type EmbeddedNats } from './embedded-nats.js';
import { startNode } from './server.js';
import { httpOptionsFromCli } from './transport/http-options.js';
import { inspectOptionsFromCli } from './observability/inspector.js';
import { devUser } from './nats/connect-options.js';
import { untilStopSignal } from './stop-signal.js';

/**
 * An engine node without the demo: joins NATS_URL, or runs the embedded nats-server. SIGTERM or
 * SIGINT stops it gracefully (no new requests, in-flight ones finish, then it exits); Ctrl-C
 * again, a second or more later, exits at once (see stop-signal.ts).
 */
export async function serve(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  // First, before anything is started: a Ctrl-C while the node starts is then a graceful stop once
  // it is up, not Node's default death that leaves the embedded nats-server holding its port.
  const stopSignal = untilStopSignal();
  let embedded: EmbeddedNats | undefined;
  if (!process.env.NATS_URL) embedded = await startEmbeddedNats();  // AF_NATS_PORT, AF_DURABILITY
  // On the embedded server the node is nats.conf's `engine` user; with NATS_URL, NATS_USER/NATS_PASSWORD say who it is.
  const node = await startNode({ natsUrl: process.env.NATS_URL ?? embedded!.url, ...(embedded ? { natsAuth: devUser('engine') } : {}), http: httpOptionsFromCli(argv), inspect: inspectOptionsFromCli(argv) })
    .catch(async (e: unknown) => { await embedded?.stop(); throw e; });
  process.send?.({ ready: true });
  console.log(JSON.stringify({ ready: true, nats: node.config.natsUrl, http: node.http?.url, inspector: node.inspector?.url }));
  await stopSignal;
  await node.stop();
  await embedded?.stop();
}

// Runs when started as a program (`tsx src/serve.ts`); `actorflow serve` imports serve() instead.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  serve().then(() => process.exit(0), (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
