import { connect, createServer } from 'node:net';
import type { Logger } from 'pino';
import type { InspectionEvent, Observer } from 'xstate';
import { retry } from '../protocol/retry.js';

/** Options of the XState inspector bridge (development only: it shows every actor's context and events). */
export interface InspectOptions {
  /** Port of the bridge page and its WebSocket; default AF_INSPECT_PORT, else 8081. 0 picks a free port. */
  port?: number;
}

export const DEFAULT_INSPECT_PORT = 8081;

/** The running bridge and the observer every actor of the node is created with. */
export interface NodeInspector {
  /** The bound port of the bridge. */
  readonly port: number;
  /** The page to open in a browser (it embeds https://stately.ai/inspect, so that browser needs internet). */
  readonly url: string;
  /** The WebSocket the node sends to; any other WebSocket client of it receives the same messages. */
  readonly wsUrl: string;
  /** Passed as `inspect` to every createActor of the node. */
  readonly inspect: Observer<InspectionEvent>;
  stop(): void;
}

function portNumber(value: unknown, source: string): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 65_535) {
    throw new Error(`${source} must be a port number from 0 to 65535, got ${String(value)}`);
  }
  return n;
}

/**
 * `--inspect` (optionally `--inspect-port N` or `--inspect-port=N`) or AF_INSPECT=1 turn the inspector
 * on; the port comes from the flag, else AF_INSPECT_PORT, else 8081. Undefined when it is off.
 */
export function inspectOptionsFromCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): InspectOptions | undefined {
  let flagPort: string | undefined;
  argv.forEach((a, i) => {
    if (a === '--inspect-port') flagPort = argv[i + 1];
    else if (a.startsWith('--inspect-port=')) flagPort = a.slice('--inspect-port='.length);
  });
  if (argv.includes('--inspect-port') && flagPort === undefined) throw new Error('--inspect-port needs a value');
  const on = argv.includes('--inspect') || flagPort !== undefined || /^(1|true|yes|on)$/i.test(env.AF_INSPECT ?? '');
  if (!on) return undefined;
  return { port: portNumber(flagPort ?? env.AF_INSPECT_PORT ?? DEFAULT_INSPECT_PORT, flagPort !== undefined ? '--inspect-port' : 'AF_INSPECT_PORT') };
}

/**
 * Checks that `port` can be bound the way the bridge binds it (every interface), or picks a free
 * one for port 0. The bridge itself cannot report a failed bind (its server has no error listener,
 * so EADDRINUSE would crash the process): this check turns that into a clear error first.
 */
function claimPort(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => {
      reject(e.code === 'EADDRINUSE'
        ? new Error(`XState inspector: port ${port} is already in use (set AF_INSPECT_PORT or --inspect-port)`, { cause: e })
        : e);
    });
    probe.listen(port, () => {
      const bound = (probe.address() as { port: number }).port;
      probe.close(() => resolve(bound));
    });
  });
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port (the bridge listens asynchronously). */
async function listening(port: number, timeoutMs = 5000): Promise<void> {
  const connected = () => new Promise<void>((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(); });
    s.once('error', reject);
  });
  await retry(connected, { firstMs: 20, capMs: 20, jitter: 0, forMs: timeoutMs }).catch(() => {
    throw new Error(`XState inspector: the bridge did not listen on port ${port}`);
  });
}

/**
 * Starts the @statelyai/inspect bridge (an HTTP page plus a WebSocket relay, never opening a
 * browser) and a WebSocket inspector connected to it. Events of actors created before the
 * WebSocket opens are buffered (the last 200); the bridge replays its last 200 messages to each
 * browser that connects.
 */
export async function startInspector(options: InspectOptions, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<NodeInspector> {
  const wanted = options.port ?? portNumber(env.AF_INSPECT_PORT ?? DEFAULT_INSPECT_PORT, 'AF_INSPECT_PORT');
  // Loaded only when asked for: a node without the inspector does not even load the package.
  const [{ createWebSocketInspector }, { createInspectorServer }] = await Promise.all([import('@statelyai/inspect'), import('@statelyai/inspect/server')]);
  const port = await claimPort(wanted);
  const bridge = createInspectorServer({ port, autoOpen: false });
  try {
    await listening(port);
  } catch (e) {
    bridge.stop();
    throw e;
  }
  const wsUrl = `ws://127.0.0.1:${port}`;
  const inspector = createWebSocketInspector({ url: wsUrl });
  const url = `http://localhost:${port}`;
  log.info({ url }, 'XState inspector bridge listening: open it in a browser with internet access (it embeds stately.ai/inspect)');
  let stopped = false;
  return {
    port, url, wsUrl, inspect: inspector.inspect,
    stop() {
      if (stopped) return;
      stopped = true;
      // The adapter reconnects after an error, and a close before the socket opened is reported as
      // one: silence it first so that a stopped inspector stays stopped.
      const ws = (inspector.adapter as unknown as { ws?: { onerror: unknown } }).ws;
      if (ws) ws.onerror = () => undefined;
      inspector.stop();
      bridge.stop();
    },
  };
}
