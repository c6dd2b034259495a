/**
 * `npx tsx test/bench/idle-connections.bench.ts`: IDLE (default 20,000) idle TCP connections to one
 * engine process with this machine's open-file limit, from two holder processes, then a new client's
 * ListDomains. Prints how many connected, how long the new client waited, and how many of the idle
 * ones the engine closed (the cap makes room by closing the longest-idle). A script, not a test; the
 * suite runs the same exhaustion scaled down (test/integration/http-connections.test.ts).
 */
import { spawnEngine } from '../helpers/engine-process.js';
import { holdIdleConnections, type HeldConnections } from '../helpers/idle-connections.js';
import { startNatsServer } from '../helpers/nats-server.js';
import { rawCall } from '../helpers/swf-http.js';

const IDLE = Number(process.env.IDLE ?? 20_000);
const HOLDERS = Math.max(1, Math.ceil(IDLE / 10_000));

async function main(): Promise<void> {
  const nats = await startNatsServer();
  const engine = await spawnEngine(nats.url);
  const holders: HeldConnections[] = [];
  try {
    const port = Number(new URL(engine.http).port);
    const t0 = performance.now();
    const held = await Promise.all(Array.from({ length: HOLDERS }, (_, i) =>
      holdIdleConnections(port, Math.floor(IDLE / HOLDERS) + (i < IDLE % HOLDERS ? 1 : 0))));
    holders.push(...held);
    const openS = (performance.now() - t0) / 1000;
    const connected = held.reduce((n, h) => n + h.connected, 0);
    const refused = held.reduce((n, h) => n + h.failedOrClosed, 0);
    const rows: string[] = [];
    for (let i = 0; i < 5; i++) {
      const c0 = performance.now();
      const r = await rawCall(port, { target: 'SimpleWorkflowService.ListDomains', body: '{"registrationStatus":"REGISTERED"}', signal: AbortSignal.timeout(30_000) });
      rows.push(`${r.status} in ${(performance.now() - c0).toFixed(0)} ms`);
    }
    console.log('| idle connections asked | connected | failed or closed | still connecting after 15 s | opening s | a new client\'s ListDomains (5 in a row) |');
    console.log('|---|---|---|---|---|---|');
    console.log(`| ${IDLE} | ${connected} | ${refused} | ${IDLE - connected - refused} | ${openS.toFixed(1)} | ${rows.join(', ')} |`);
  } finally {
    for (const h of holders) h.stop();
    await engine.stop();
    await nats.stop();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
