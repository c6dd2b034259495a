/**
 * `npx tsx test/bench/sfn-activity.bench.ts`: a 4-activity Step Functions execution side by side with
 * the 4-activity SWF order workflow, in one run against one engine node (its own process) on a fresh
 * nats-server; prints rates, what each costs the store and the messaging layer, the same run's
 * ceiling and the CPU per execution of the engine, nats-server and the clients. A script, not a test.
 * TOTAL (default 2000), IN_FLIGHT (200), WORKERS (48, also the SWF deciders).
 */
import { ActorFlowClient } from '../../src/sdk/client.js';
import { startSfnActivityWorker } from '../../src/sdk/sfn-activity-worker.js';
import { ORDER_STEPS, ORDER_WORKFLOW, registerOrderTypes, startOrderParticipants } from '../../src/demo/order-fulfilment.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { appendsSoFar, ceiling, countRequests, CpuMeter, fmt, pct, printTable, rawRates, startEngineProcess, type RawRates } from './bench-kit.js';

const TOTAL = Number(process.env.TOTAL ?? 2000);
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 200);
const WORKERS = Number(process.env.WORKERS ?? 48);

interface Phase { rate: number; p50: number; p99: number; done: number; appends: number; requests: number; cpu: { engine: number; nats: number; clients: number } }

/** Runs `one(i)` TOTAL times, IN_FLIGHT at once, counting appends, requests and CPU around it. */
async function measure(server: NatsServerHandle, counter: { count(): number }, cpu: CpuMeter, one: (i: number) => Promise<number>): Promise<Omit<Phase, 'done'>> {
  const appends0 = await appendsSoFar(server.url);
  const requests0 = counter.count();
  cpu.mark();
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => { while (next < TOTAL) lat.push(await one(next++)); }));
  const secs = (performance.now() - t0) / 1000;
  return {
    rate: TOTAL / secs, p50: pct(lat, 50), p99: pct(lat, 99), cpu: cpu.spent(),
    appends: ((await appendsSoFar(server.url)) - appends0) / TOTAL, requests: (counter.count() - requests0) / TOTAL,
  };
}

async function swfPhase(server: NatsServerHandle, client: ActorFlowClient, counter: { count(): number }, cpu: CpuMeter): Promise<Phase> {
  const domain = 'bench';
  await registerOrderTypes(client, domain);
  const waiters = new Map<string, () => void>();
  const participants = startOrderParticipants(client, domain, {
    deciders: WORKERS, workers: WORKERS, pollTimeoutMs: 5000,
    onClosed: (id) => { waiters.get(id)?.(); waiters.delete(id); },
  });
  const phase = await measure(server, counter, cpu, async (i) => {
    const workflowId = `order-${i}`;
    const t = performance.now();
    const closed = new Promise<void>((resolve) => waiters.set(workflowId, resolve));
    await client.call('StartWorkflowExecution', { domain, workflowId, workflowType: ORDER_WORKFLOW, input: '{}' });
    await closed;
    return performance.now() - t;
  });
  await participants.stop();
  return { ...phase, done: TOTAL };
}

async function sfnPhase(server: NatsServerHandle, client: ActorFlowClient, counter: { count(): number }, cpu: CpuMeter): Promise<Phase> {
  const { activityArn } = await client.call<{ activityArn: string }>('CreateActivity', { name: 'bench-order-step' });
  // The order workflow's four steps, each an activity Task, as the SWF workflow runs them.
  const States: Record<string, unknown> = {};
  ORDER_STEPS.forEach((step, k) => {
    States[step] = { Type: 'Task', Resource: activityArn, HeartbeatSeconds: 60, TimeoutSeconds: 300, ResultPath: `$.${step}`, ...(k + 1 < ORDER_STEPS.length ? { Next: ORDER_STEPS[k + 1] } : { End: true }) };
  });
  const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', {
    name: 'bench-order', roleArn: 'arn:aws:iam::000000000000:role/bench', definition: JSON.stringify({ StartAt: ORDER_STEPS[0], States }),
  });
  // The last step's answer closes the execution; the worker resolves its waiter once that answer is sent.
  const waiters = new Map<number, () => void>();
  const worker = startSfnActivityWorker(client, {
    activityArn, workerName: 'bench', concurrency: WORKERS, pollTimeoutMs: 5000,
    handler: async (input) => {
      const x = input as { i: number; VerifyOrder?: unknown; ChargeCreditCard?: unknown; ShipOrder?: unknown };
      if (x.ShipOrder !== undefined) setImmediate(() => { waiters.get(x.i)?.(); waiters.delete(x.i); });
      return { ok: true };
    },
    onError: (e) => console.error('worker', e),
  });
  const arns: string[] = [];
  const phase = await measure(server, counter, cpu, async (i) => {
    const t = performance.now();
    const answered = new Promise<void>((resolve) => waiters.set(i, resolve));
    const { executionArn } = await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, name: `x-${i}`, input: JSON.stringify({ i }) });
    arns.push(executionArn);
    await answered;
    return performance.now() - t;
  });
  await worker.stop();
  let done = 0;
  for (let k = 0; k < arns.length; k += 100) {
    const d = await Promise.all(arns.slice(k, k + 100).map((executionArn) => client.call<{ status: string }>('DescribeExecution', { executionArn })));
    done += d.filter((x) => x.status === 'SUCCEEDED').length;
  }
  return { ...phase, done };
}

function row(kind: string, p: Phase, raw: RawRates): string[] {
  const top = ceiling(raw, p.appends, p.requests);
  return [kind, `${p.done}/${TOTAL}`, fmt(p.rate), fmt(p.p50), fmt(p.p99), fmt(p.appends), fmt(p.requests), `${fmt(top.perSec, 0)} (${top.bound})`,
    `${fmt((100 * p.rate) / top.perSec, 0)} %`, fmt(p.cpu.engine / TOTAL, 2), fmt(p.cpu.nats / TOTAL, 2), fmt(p.cpu.clients / TOTAL, 2)];
}

async function main(): Promise<void> {
  const server = await startNatsServer();
  const raw = await rawRates(server.url);
  const engine = await startEngineProcess(server.url);
  const client = await ActorFlowClient.connect({ servers: server.url });
  const counter = countRequests(client);
  const cpu = new CpuMeter(engine.pid, server.proc.pid!);
  const swf = await swfPhase(server, client, counter, cpu);
  const sfn = await sfnPhase(server, client, counter, cpu);
  await client.close();
  await engine.stop();
  await server.stop();
  console.log(`\n4 activities per execution, ${IN_FLIGHT} in flight, ${WORKERS} workers (and ${WORKERS} SWF deciders), one engine node`);
  printTable(['kind', 'succeeded', 'exec/s', 'p50 ms', 'p99 ms', 'appends/exec', 'requests/exec', 'ceiling exec/s', 'of ceiling', 'engine CPU ms', 'nats-server CPU ms', 'clients CPU ms'],
    [row('SWF order workflow', swf, raw), row('Step Functions, 4 Tasks', sfn, raw)]);
  console.log(`Step Functions ÷ SWF engine CPU per execution: ${fmt(sfn.cpu.engine / swf.cpu.engine, 2)}`);
  console.log(`raw rates: JetStream R1 appends ${fmt(raw.appendsPar, 0)}/s with 64 in flight; core request/reply ${fmt(raw.requests, 0)}/s with 16 requesters`);
}

main().then(() => process.exit(0), (e: unknown) => { console.error(e); process.exit(1); });
