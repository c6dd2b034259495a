import { spawn } from 'node:child_process';

/** What a holder process reports once its connections are settled. */
export interface HeldConnections {
  /** Connections the server accepted (TCP connect completed). */
  connected: number;
  /** Connections that failed to connect within the wait, or were closed by the server. */
  failedOrClosed: number;
  /** Kills the holder process (its sockets close with it). */
  stop(): void;
}

// Runs in a child process: each holder has its own open-file limit, so several of them can hold
// more connections than one process may. It writes nothing on the sockets (idle connections).
const HOLDER = `
const net = require('node:net');
const [port, n] = process.argv.slice(1).map(Number);
let connected = 0, gone = 0, started = 0, settled = 0;
const sockets = [];
const done = () => { if (++settled === n) report(); };
const report = () => { process.stdout.write(JSON.stringify({ connected, gone }) + '\\n'); };
const next = () => {
  if (started >= n) return;
  started++;
  const s = net.connect(port, '127.0.0.1');
  sockets.push(s);
  let counted = false;
  const settle = () => { if (!counted) { counted = true; done(); next(); } };
  s.once('connect', () => { connected++; settle(); });
  s.once('error', () => { if (!counted) gone++; settle(); });
  s.on('data', () => {});
};
for (let i = 0; i < 4096; i++) next();
setTimeout(report, 15000).unref();
`;

/** Opens `n` idle TCP connections to 127.0.0.1:`port` from a separate process and keeps them open. */
export async function holdIdleConnections(port: number, n: number): Promise<HeldConnections> {
  const proc = spawn(process.execPath, ['-e', HOLDER, String(port), String(n)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    proc.once('exit', (code) => reject(new Error(`connection holder exited (code ${code})`)));
  });
  const r = JSON.parse(line) as { connected: number; gone: number };
  return { connected: r.connected, failedOrClosed: r.gone, stop: () => { if (proc.exitCode === null) proc.kill('SIGKILL'); } };
}
