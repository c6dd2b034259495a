import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { readToEnd } from '../../src/nats/read-stream.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';

let server: NatsServerHandle;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
let streams = 0;

/** A fresh stream `RS<n>` over `rs<n>.>`. */
async function stream(): Promise<{ name: string; subj: string }> {
  const n = ++streams;
  await jsm.streams.add({ name: `RS${n}`, subjects: [`rs${n}.>`] });
  return { name: `RS${n}`, subj: `rs${n}` };
}

async function collect(name: string, opts: Parameters<typeof readToEnd>[2] = {}): Promise<{ seqs: number[]; ms: number }> {
  const t0 = performance.now();
  const seqs: number[] = [];
  for await (const m of readToEnd(js, name, opts)) seqs.push(m.seq);
  return { seqs, ms: performance.now() - t0 };
}

const consumers = async (name: string) => (await jsm.streams.info(name)).state.consumer_count;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  await nc?.close();
  await server?.stop();
});

describe('readToEnd', () => {
  it('ends at once on an empty stream and leaves no consumer', async () => {
    const { name } = await stream();
    const { seqs, ms } = await collect(name);
    expect(seqs).toEqual([]);
    expect(ms).toBeLessThan(1000);
    expect(await consumers(name)).toBe(0);
  });

  it('ends at once on a filter that matches nothing in a stream that has messages', async () => {
    const { name, subj } = await stream();
    for (let i = 0; i < 20; i++) await js.publish(`${subj}.a.${i}`, new Uint8Array([i]));
    const { seqs, ms } = await collect(name, { filter: `${subj}.b.>` });
    console.log(`readToEnd: empty filter ended after ${ms.toFixed(1)} ms`);
    expect(seqs).toEqual([]);
    // A fetch would have waited its 5 s expiry; the pending count says there is nothing.
    expect(ms).toBeLessThan(1000);
    expect(await consumers(name)).toBe(0);
  });

  it('delivers exactly the matching messages over several fetch batches, then ends without waiting an expiry', async () => {
    const { name, subj } = await stream();
    const want: number[] = [];
    for (let i = 0; i < 1050; i++) {
      const ack = await js.publish(`${subj}.${i % 3 === 0 ? 'x' : 'y'}.${i}`, new Uint8Array([i % 256]));
      if (i % 3 === 0) want.push(ack.seq);
    }
    // The last message of the stream does not match: the read must still end on its own.
    await js.publish(`${subj}.y.last`, new Uint8Array());
    const { seqs, ms } = await collect(name, { filter: `${subj}.x.>`, batch: 64 });
    console.log(`readToEnd: ${seqs.length} of 1,051 messages in ${Math.ceil(seqs.length / 64)} fetches, ${ms.toFixed(1)} ms`);
    expect(seqs).toEqual(want);
    expect(ms).toBeLessThan(4000); // well under one 5 s fetch expiry, on a loaded machine
    const all = await collect(name, { batch: 100 });
    expect(all.seqs).toHaveLength(1051);
    expect(all.seqs).toEqual([...all.seqs].sort((a, b) => a - b));
    expect(await consumers(name)).toBe(0);
  });

  it('stops at endSeq and starts at startSeq', async () => {
    const { name, subj } = await stream();
    for (let i = 1; i <= 30; i++) await js.publish(`${subj}.a`, new Uint8Array([i]));
    expect((await collect(name, { filter: `${subj}.a`, endSeq: 12, batch: 5 })).seqs).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect((await collect(name, { startSeq: 25 })).seqs).toEqual([25, 26, 27, 28, 29, 30]);
  });

  it('does not run on after the end when messages keep arriving', async () => {
    const { name, subj } = await stream();
    for (let i = 0; i < 100; i++) await js.publish(`${subj}.a`, new Uint8Array([i]));
    let n = 0;
    for await (const m of readToEnd(js, name, { batch: 10 })) {
      n++;
      // Every message read brings a new one: a read that followed the stream would never end.
      await js.publish(`${subj}.a`, new Uint8Array([m.seq % 256]));
    }
    expect(n).toBe(100);
    expect(await consumers(name)).toBe(0);
  });

  it('deletes its consumer when the reader stops early', async () => {
    const { name, subj } = await stream();
    for (let i = 0; i < 50; i++) await js.publish(`${subj}.a`, new Uint8Array([i]));
    for await (const m of readToEnd(js, name, { batch: 10 })) if (m.seq === 15) break;
    expect(await consumers(name)).toBe(0);
  });

  it('reads a KV bucket\'s stream whose last message is a delete marker without waiting (openRunRecords)', async () => {
    const kv = await new Kvm(nc).create('rs_kv', { history: 1 });
    for (let i = 0; i < 30; i++) await kv.put(`k${i}`, new Uint8Array([i]));
    await kv.delete('k29');
    const live: string[] = [];
    const t0 = performance.now();
    for await (const m of readToEnd(js, 'KV_rs_kv', { batch: 10_000 })) {
      if (!m.headers?.get('KV-Operation') && m.data.length > 0) live.push(m.subject.slice('$KV.rs_kv.'.length));
    }
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(live).toEqual(Array.from({ length: 29 }, (_, i) => `k${i}`));
    expect(await consumers('KV_rs_kv')).toBe(0);
  });

  it('goes on from the last message seen when the server drops its consumer', async () => {
    const { name, subj } = await stream();
    for (let i = 0; i < 60; i++) await js.publish(`${subj}.a`, new Uint8Array([i]));
    const seqs: number[] = [];
    let dropped = 0;
    for await (const m of readToEnd(js, name, { batch: 10 })) {
      seqs.push(m.seq);
      if (m.seq === 25) {
        for await (const c of jsm.consumers.list(name)) { await jsm.consumers.delete(name, c.name); dropped++; }
      }
    }
    expect(dropped).toBe(1);
    expect(seqs).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(await consumers(name)).toBe(0);
  });
});
