import { startEmbeddedNats, type EmbeddedNats } from './embedded-nats.js';
import { startNode } from './node.js';
import { httpOptionsFromCli } from './transport/http-options.js';

/**
 * An engine node without the demo: joins NATS_URL, or runs the embedded nats-server. SIGTERM or
 * SIGINT stops it gracefully (no new requests, in-flight ones finish, then it exits).
 */
async function serve(): Promise<void> {
  let embedded: EmbeddedNats | undefined;
  if (!process.env.NATS_URL) embedded = await startEmbeddedNats();
  const node = await startNode({ natsUrl: process.env.NATS_URL ?? embedded!.url, http: httpOptionsFromCli(process.argv.slice(2)) })
    .catch(async (e: unknown) => { await embedded?.stop(); throw e; });
  process.send?.({ ready: true });
  console.log(JSON.stringify({ ready: true, nats: node.config.natsUrl, http: node.http?.url }));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await node.stop();
  await embedded?.stop();
}

serve().then(() => process.exit(0), (e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
