import {
  DescribeMapRunCommand, ListExecutionsCommand, ListMapRunsCommand, StartExecutionCommand, type SFNClient,
} from '@aws-sdk/client-sfn';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnEngine, type EngineProcess } from '../helpers/engine-process.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { createMachine, fullHistory, sfnClient, waitClosed } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

/*
 * A parent's node is SIGKILLed while its Distributed Map runs: the next node takes the map run up
 * from its record, starts none of the children twice, keeps MaxConcurrency, and the Map state ends
 * with every item's result in order.
 */

let nats: NatsServerHandle | undefined;
const engines: EngineProcess[] = [];
const clients: SFNClient[] = [];
afterAll(async () => {
  for (const c of clients) c.destroy();
  await Promise.all(engines.map((e) => e.stop()));
  await nats?.stop();
});

const clientOf = (e: EngineProcess) => {
  const c = sfnClient(Number(new URL(e.http).port));
  clients.push(c);
  return c;
};

const definition = {
  StartAt: 'Fan',
  States: {
    Fan: {
      Type: 'Map', MaxConcurrency: 2, Label: 'Crash', End: true,
      ItemProcessor: {
        ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
        StartAt: 'Pause',
        States: { Pause: { Type: 'Wait', Seconds: 2, Next: 'Echo' }, Echo: { Type: 'Pass', Parameters: { 'item.$': '$' }, End: true } },
      },
    },
  },
};

describe('Distributed Map across a crash of the parent\'s node', () => {
  it('finishes on the next node without starting a child twice', async () => {
    nats = await startNatsServer();
    const a = await spawnEngine(nats.url);
    engines.push(a);
    let sfn = clientOf(a);
    const sm = await createMachine(sfn, definition);
    const input = Array.from({ length: 8 }, (_, i) => i);
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: sm, input: JSON.stringify(input) }));
    let mapRunArn = '';
    await until(async () => {
      mapRunArn = (await sfn.send(new ListMapRunsCommand({ executionArn }))).mapRuns?.[0]?.mapRunArn ?? '';
      if (!mapRunArn) return false;
      const m = await sfn.send(new DescribeMapRunCommand({ mapRunArn }));
      return m.executionCounts!.succeeded! >= 2 && m.executionCounts!.running! >= 1;
    }, { timeoutMs: 30_000, intervalMs: 100, message: 'the map run halfway' });
    const killAt = Date.now();
    a.kill('SIGKILL');
    await a.exited;

    const b = await spawnEngine(nats.url);
    engines.push(b);
    sfn = clientOf(b);
    const d = await waitClosed(sfn, executionArn!, 60_000);
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toEqual(input.map((item) => ({ item })));

    const kids = (await sfn.send(new ListExecutionsCommand({ mapRunArn }))).executions!;
    expect(kids).toHaveLength(8);
    expect(new Set(kids.map((k) => k.name)).size).toBe(8);
    expect(kids.every((k) => k.status === 'SUCCEEDED')).toBe(true);
    // Each child ran once: one ExecutionStarted in its history, and those started before the crash kept their start.
    for (const k of kids) expect((await fullHistory(sfn, k.executionArn!)).filter((e) => e.type === 'ExecutionStarted')).toHaveLength(1);
    const before = kids.filter((k) => k.startDate!.getTime() < killAt);
    expect(before.length).toBeGreaterThanOrEqual(3);
    const edges = kids.flatMap((x) => [[x.startDate!.getTime(), 1], [x.stopDate!.getTime(), -1]] as const).sort((p, q) => p[0] - q[0] || p[1] - q[1]);
    let now = 0;
    let most = 0;
    for (const [, step] of edges) { now += step; most = Math.max(most, now); }
    expect(most).toBeLessThanOrEqual(2);
    const m = await sfn.send(new DescribeMapRunCommand({ mapRunArn }));
    expect({ status: m.status, items: m.itemCounts }).toMatchObject({ status: 'SUCCEEDED', items: { succeeded: 8, total: 8 } });
    const types = (await fullHistory(sfn, executionArn!)).map((e) => e.type);
    expect(types.filter((t) => t === 'MapRunStarted')).toHaveLength(1);
    console.log(`distributed map restart: ${before.length} of 8 children started before the SIGKILL; closed ${d.stopDate!.getTime() - killAt} ms after it`);
  }, 120_000);
});
