/**
 * `npx tsx test/bench/list-executions.bench.ts`: List/Count Open WorkflowExecutions over 100,000 open
 * executions of one domain. The records go straight into the node's visibility index (and into
 * AF_VISIBILITY, to time a fresh index loading them); the queries go through the real API over NATS.
 * Prints p50/p99 per query in a table (`node --expose-gc --import tsx …` adds the index's heap size).
 */
import pino from 'pino';
import { startNode } from '../../src/server.js';
import { encode } from '../../src/protocol/codec.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { VisibilityIndex } from '../../src/swf/visibility-index.js';
import { VisibilityFeed } from '../../src/visibility/visibility-feed.js';
import type { VisibilityRecord } from '../../src/swf/visibility-records.js';
import { startNatsServer } from '../helpers/nats-server.js';

const N = Number(process.env.AF_BENCH_EXECUTIONS ?? 100_000);
const ROUNDS = 200;
const domain = 'bench';
const TYPES = [{ name: 'Alpha', version: '1' }, { name: 'Beta', version: '1' }, { name: 'Gamma', version: '1' }];
const TAGS = ['red', 'green', 'blue', 'cyan', 'plum'];

const server = await startNatsServer();
const node = await startNode({ natsUrl: server.url, logger: pino({ level: 'silent' }) });
const c = await ActorFlowClient.connect({ servers: server.url });
await c.ensureDomain(domain);

const t0 = Date.now() - N * 1000;
const records: VisibilityRecord[] = Array.from({ length: N }, (_, i) => ({
  domain, execution: { workflowId: `wf-${i}`, runId: `run${i.toString(36).padStart(8, '0')}` }, workflowType: TYPES[i % 3]!,
  startTimestamp: t0 + i * 1000 + (i % 7), executionStatus: 'OPEN', tagList: [TAGS[i % 5]!], cancelRequested: false, version: 2,
}));
// Arrive in a shuffled order, so the index cannot rely on appends alone.
for (let i = records.length - 1; i > 0; i--) {
  const j = Math.floor(Math.random() * (i + 1));
  [records[i], records[j]] = [records[j]!, records[i]!];
}
let s = performance.now();
for (const r of records) node.ctx.visibility.apply(r);
const insertMs = performance.now() - s;

const samples = new Map<string, number[]>();
async function measure(label: string, input: object, action = 'ListOpenWorkflowExecutions'): Promise<void> {
  const xs: number[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    const start = performance.now();
    await c.call(action, { domain, ...input });
    xs.push(performance.now() - start);
  }
  samples.set(`${action} ${label}`, xs);
}
const ALL = { startTimeFilter: { oldestDate: 0 } };
const mid = (t0 + (N / 2) * 1000) / 1000;
const first = await c.call('ListOpenWorkflowExecutions', { domain, ...ALL, maximumPageSize: 100 });
const results = {
  'all (1,000 per page)': (await c.call('ListOpenWorkflowExecutions', { domain, ...ALL })).executionInfos.length,
};
await measure('all, 1,000 per page (default)', ALL);
await measure('all, 100 per page', { ...ALL, maximumPageSize: 100 });
await measure('all, 100 per page, reverseOrder', { ...ALL, maximumPageSize: 100, reverseOrder: true });
await measure('next page (token), 100 per page', { ...ALL, maximumPageSize: 100, nextPageToken: first.nextPageToken });
await measure('typeFilter, 100 per page', { ...ALL, maximumPageSize: 100, typeFilter: TYPES[1] });
await measure('tagFilter, 100 per page', { ...ALL, maximumPageSize: 100, tagFilter: { tag: 'plum' } });
await measure('executionFilter (1 match in 100k)', { ...ALL, executionFilter: { workflowId: 'wf-4242' } });
await measure('1-hour start window in the middle', { startTimeFilter: { oldestDate: mid, latestDate: mid + 3600 } });
await measure('all', ALL, 'CountOpenWorkflowExecutions');
await measure('tagFilter', { ...ALL, tagFilter: { tag: 'red' } }, 'CountOpenWorkflowExecutions');

// Loading: the same records in AF_VISIBILITY, read by a fresh index as a node does at start.
const { js, jsm, subjects } = node.nats;
s = performance.now();
const inflight: Promise<unknown>[] = [];
for (const r of records) {
  inflight.push(js.publish(subjects.visibility(domain, r.execution.runId), encode(r)));
  if (inflight.length >= 512) await Promise.all(inflight.splice(0));
}
await Promise.all(inflight);
const publishMs = performance.now() - s;
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const heapBefore = process.memoryUsage().heapUsed;
s = performance.now();
const fresh = new VisibilityIndex();
const feed = new VisibilityFeed(js, jsm, subjects, pino({ level: 'silent' }), [fresh.sink]);
await feed.start();
const loaded = fresh.size;
const loadMs = performance.now() - s;
gc?.();
const indexMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
feed.stop();

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((p / 100) * (xs.length - 1))]!;
console.log(`\n${N.toLocaleString('en')} open executions; ${ROUNDS} calls per row over NATS (msgpack), one engine node in this process\n`);
console.log('| query | p50 ms | p99 ms |\n|---|---|---|');
for (const [k, xs] of samples) console.log(`| ${k} | ${pct(xs, 50).toFixed(2)} | ${pct(xs, 99).toFixed(2)} |`);
console.log(`\nindexing ${N.toLocaleString('en')} records in shuffled order: ${insertMs.toFixed(0)} ms; first page holds ${results['all (1,000 per page)']} infos`);
console.log(`publishing them to AF_VISIBILITY: ${publishMs.toFixed(0)} ms; a fresh index loading ${loaded.toLocaleString('en')} records: ${loadMs.toFixed(0)} ms, `
  + (gc ? `${indexMb.toFixed(0)} MB of heap` : 'heap: run with node --expose-gc --import tsx'));
await c.close();
await node.stop();
await server.stop();
process.exit(0);
