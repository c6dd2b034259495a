/**
 * `npm run chaos [-- --minutes 10] [--mode cluster|single] [--swf-rate 3] [--sfn-rate 1]`: SWF and
 * Step Functions load while engine nodes and nats-servers are SIGKILLed and restarted (a kill every
 * 15–40 s, 27.5 s on average: `--kill-min 15 --kill-mean 27.5`), then every acknowledged start is
 * checked (starts a second per kind: `--swf-rate`, `--sfn-rate`; `--min-kills N` goes on past the
 * duration until N kills were survived); prints a table and exits
 * non-zero on any invariant violation. `--mode cluster` (default): 3 nats-servers (JetStream R3)
 * and 3 engine nodes, a random engine or nats-server each time (the kinds alternate). `--mode
 * single`: one engine with its embedded nats-server, both killed together. Loopback only, temp
 * stores. The short version runs in the test suite (test/cluster/chaos.test.ts).
 */
import { parseArgs } from 'node:util';
import { untilStopSignal } from '../src/stop-signal.js';
import { formatChaosReport, runChaos } from '../test/helpers/chaos-run.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    mode: { type: 'string', default: 'cluster' },
    'swf-rate': { type: 'string', default: '3' },
    'sfn-rate': { type: 'string', default: '1' },
    'kill-min': { type: 'string', default: '15' },
    'kill-mean': { type: 'string', default: '27.5' },
    'min-kills': { type: 'string', default: '0' },
  },
});
const positive = (name: string, v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${JSON.stringify(v)}`);
  return n;
};

// Ctrl-C stops the processes the run started (then exits) instead of leaving them behind; Ctrl-C
// again, a second or more later, exits at once (see stop-signal.ts).
let stopTopology: (() => Promise<void>) | undefined;
void untilStopSignal().then(() => (stopTopology?.() ?? Promise.resolve()).finally(() => process.exit(130)));

async function main(): Promise<number> {
  const mode = values.mode;
  if (mode !== 'cluster' && mode !== 'single') throw new Error(`--mode must be cluster or single, got ${JSON.stringify(mode)}`);
  const report = await runChaos({
    mode,
    durationMs: Math.round(positive('minutes', values.minutes) * 60_000),
    killEveryMs: { min: positive('kill-min', values['kill-min']) * 1000, mean: positive('kill-mean', values['kill-mean']) * 1000 },
    minKills: Math.floor(Number(values['min-kills'])) || 0,
    swfPerSecond: Math.round(positive('swf-rate', values['swf-rate'])),
    sfnPerSecond: Math.round(positive('sfn-rate', values['sfn-rate'])),
    drainTimeoutMs: 180_000,
    log: (line) => console.log(line),
    onTopology: (stop) => { stopTopology = stop; },
  });
  console.log(formatChaosReport(report));
  return report.violations.length === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (e: unknown) => { console.error(e); process.exit(2); });
