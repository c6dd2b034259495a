/**
 * `npm run cluster`: a local trial of a clustered deployment on loopback. Starts the three
 * nats-servers of deploy/cluster (one JetStream cluster, R3 streams; clients on 4222-4224) and
 * three engine nodes (deploy/cluster/engine-N.env; HTTP on 8080-8082), prints where everything is,
 * and stops it all on Ctrl-C (engines first, gracefully, then the servers). Stores: .data/cluster/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { devUser, NATS_USERS } from '../src/nats/connect-options.js';
import { natsServerBinary } from '../src/nats/server-binary.js';
import { durabilityFromEnv, withDurability } from '../src/nats/durability.js';
import { ENGINE_NODE_FLAGS } from '../src/node-flags.js';
import { stopsWhenWeDie } from '../src/child-guard.js';
import { untilStopSignal } from '../src/stop-signal.js';

const ROOT = new URL('../', import.meta.url).pathname;
const DIR = 'deploy/cluster';
const NATS_URLS = ['nats://127.0.0.1:4222', 'nats://127.0.0.1:4223', 'nats://127.0.0.1:4224'];

/** KEY=value lines of an env file (comments and blank lines skipped). */
function envFile(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^\s*([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!.trim();
  }
  return out;
}

const children: { name: string; proc: ChildProcess; dismissGuard: () => void }[] = [];
// However this script ends (an error, a second Ctrl-C), no server or engine it started outlives it;
// killed outright (no exit handler runs), each child's guard stops it.
process.once('exit', () => {
  for (const { proc, dismissGuard } of children) {
    dismissGuard();
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
  }
});
const prefixed = (name: string) => (chunk: Buffer) => {
  for (const line of chunk.toString().split('\n')) if (line.trim()) process.stderr.write(`[${name}] ${line}\n`);
};

async function waitForJetStream(): Promise<void> {
  const engine = devUser('engine');
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const nc = await connect({ servers: NATS_URLS, user: engine.user, pass: engine.password, timeout: 1000 });
      try {
        await (await jetstreamManager(nc)).getAccountInfo();
        return;
      } finally {
        await nc.close();
      }
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`the NATS cluster did not elect a JetStream leader in 20 s: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** Resolves with the node's HTTP URL once its GET /readyz answers 200 (NATS connected, its partitions rebuilt). */
function engineReady(proc: ChildProcess, http: string): Promise<{ http: string }> {
  return new Promise((resolve, reject) => {
    let exited = false;
    proc.stdout!.resume(); // its ready line is not needed: /readyz says it
    proc.once('exit', (code) => { exited = true; reject(new Error(`engine exited with ${code} before it was ready`)); });
    const deadline = Date.now() + 120_000;
    void (async () => {
      while (!exited) {
        const status = await fetch(`${http}/readyz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status, () => 0);
        if (status === 200) return resolve({ http });
        if (Date.now() > deadline) return reject(new Error(`engine at ${http} was not ready (GET /readyz) within 120 s`));
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
  });
}

async function stopAll(): Promise<void> {
  for (const group of [children.filter((c) => c.name.startsWith('engine')), children.filter((c) => c.name.startsWith('nats'))]) {
    await Promise.all(group.map(({ proc }) => new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
      setTimeout(() => proc.kill('SIGKILL'), 10_000).unref();
    })));
  }
}

/**
 * Server i's configuration; with AF_DURABILITY=fsync a copy with `sync_interval: always`, written
 * beside the original (its `include ./auth.conf` is relative to it) as a git-ignored *.effective.conf.
 */
function serverConfig(i: number): string {
  const conf = `${DIR}/nats-${i}.conf`;
  const durability = durabilityFromEnv();
  if (durability === 'default') return conf;
  const effective = `${DIR}/nats-${i}.effective.conf`;
  writeFileSync(effective, withDurability(readFileSync(conf, 'utf8'), durability));
  return effective;
}

async function main(): Promise<void> {
  // First, before anything is started: a Ctrl-C while the cluster comes up stops it once it is up.
  const stopSignal = untilStopSignal();
  process.chdir(ROOT);
  const env = { ...process.env };
  for (const role of ['engine', 'worker'] as const) env[NATS_USERS[role].passwordEnv] = devUser(role, process.env).password;
  for (let i = 1; i <= 3; i++) {
    mkdirSync(`.data/cluster/n${i}`, { recursive: true });
    // A process group of its own: Ctrl-C in the terminal signals the whole foreground group, and the
    // servers must outlive the engines' graceful stop (they hand their partitions over through NATS).
    const proc = spawn(natsServerBinary(), ['-c', serverConfig(i)], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    // Only fatal lines: route dial errors are normal while the three servers come up.
    proc.stderr!.on('data', (c: Buffer) => { for (const l of c.toString().split('\n')) if (/\[FTL\]/.test(l)) process.stderr.write(`[nats-${i}] ${l}\n`); });
    // Killed outright, the script's engines get their SIGTERM at once and the servers 5 s later.
    children.push({ name: `nats-${i}`, proc, dismissGuard: stopsWhenWeDie(proc, { afterSeconds: 5 }) });
  }
  await waitForJetStream();
  const startEngine = (i: number) => {
    const engineEnv = envFile(`${DIR}/engine-${i}.env`);
    const proc = spawn(process.execPath, [...ENGINE_NODE_FLAGS, '--import', 'tsx', 'src/serve.ts'], {
      env: { ...env, ...engineEnv, NATS_PASSWORD: devUser('engine').password },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stderr!.on('data', prefixed(`engine-${i}`));
    children.push({ name: `engine-${i}`, proc, dismissGuard: stopsWhenWeDie(proc) });
    return engineReady(proc, `http://127.0.0.1:${engineEnv.AF_HTTP_PORT ?? 8080}`);
  };
  // The first node creates the R3 streams and buckets and the partition count; then the others join.
  const first = await startEngine(1);
  const ready = [first, ...await Promise.all([2, 3].map(startEngine))];
  const worker = devUser('worker');
  console.log([
    'ActorFlow cluster on loopback: 3 nats-servers (JetStream, R3) and 3 engine nodes',
    `  NATS clients:   ${NATS_URLS.join(',')}   (monitoring: http://127.0.0.1:8222-8224)`,
    ...ready.map((r, i) => `  engine-${i + 1}:       ${r.http}   console: ${r.http}/console/   metrics: ${r.http}/metrics   readiness: ${r.http}/readyz`),
    `  workers:        NATS_URL=${NATS_URLS.join(',')} NATS_USER=${worker.user} NATS_PASSWORD=${worker.password}`,
    `  status:         NATS_URL=${NATS_URLS[0]} NATS_USER=engine NATS_PASSWORD=${devUser('engine').password} npx actorflow cluster status`,
    'Ctrl-C stops everything (engines hand their partitions over first). Stores: .data/cluster/',
  ].join('\n'));
  for (const { name, proc } of children) {
    proc.once('exit', (code, signal) => { if (!stopping) console.error(`${name} exited (${signal ?? code})`); });
  }
  // Ctrl-C again, a second or more later, exits at once; the exit handler above still stops every child.
  await stopSignal;
  stopping = true;
  console.log('stopping: engines, then nats-servers…');
  await stopAll();
}

let stopping = false;
main().then(() => process.exit(0), async (e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  stopping = true;
  await stopAll();
  process.exit(1);
});
