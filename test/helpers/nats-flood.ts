import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// Runs in its own process (so the flood's client work does not share the engine's event loop):
// one NATS connection sends `n` requests at once and counts the answers by fault name.
const FLOOD = `
import { connect } from '@nats-io/transport-node';
import { pack, unpack } from 'msgpackr';
const [url, subject, n] = process.argv.slice(1);
const nc = await connect({ servers: url, maxPingOut: 100 });
const body = pack({ registrationStatus: 'REGISTERED' });
const counts = {};
process.stdout.write('sending\\n');
await Promise.all(Array.from({ length: Number(n) }, async () => {
  let k;
  try { const r = unpack((await nc.request(subject, body, { timeout: 60000 })).data); k = r.fault ? r.fault.name : 'ok'; }
  catch (e) { k = 'error:' + (e.code ?? e.message); }
  counts[k] = (counts[k] ?? 0) + 1;
}));
process.stdout.write(JSON.stringify(counts) + '\\n');
await nc.close();
`;

/** Floods `subject` with `n` requests from one NATS connection in a child process. */
export function floodNats(url: string, subject: string, n: number): { sending: Promise<void>; answers: Promise<Record<string, number>> } {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', FLOOD, url, subject, String(n)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let onSending: () => void;
  const sending = new Promise<void>((r) => { onSending = r; });
  const answers = new Promise<Record<string, number>>((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('sending\n')) onSending();
      const lines = out.split('\n').filter((l) => l.startsWith('{'));
      if (lines.length) resolve(JSON.parse(lines[0]!) as Record<string, number>);
    });
    proc.once('exit', (code) => reject(new Error(`flood process exited (code ${code}): ${out}`)));
  });
  return { sending, answers };
}
