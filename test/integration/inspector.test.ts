import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createWebSocketInspector, createWebSocketReceiver, type StatelyInspectionEvent } from '@statelyai/inspect';
import { startNode, type EngineNode } from '../../src/server.js';
import { ActorFlowClient } from '../../src/sdk/client.js';
import { registerOrderTypes, startOrderParticipants, ORDER_WORKFLOW } from '../../src/demo/order-fulfilment.js';
import { inspectOptionsFromCli } from '../../src/observability/inspector.js';
import { createMachineSet } from '../../src/swf/kind/execution-actors.js';
import { createSystemClock } from '../../src/engine/clock.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { uniqueDomain } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

let server: NatsServerHandle;
let node: EngineNode;
let client: ActorFlowClient;

beforeAll(async () => {
  server = await startNatsServer();
  node = await startNode({ natsUrl: server.url, partitions: 4, inspect: { port: 0 }, logger: pino({ level: process.env.AF_TEST_LOG ?? 'silent' }) });
  client = await ActorFlowClient.connect({ servers: server.url });
});
afterAll(async () => {
  await client?.close();
  await node?.stop();
  await server?.stop();
});

type Msg = StatelyInspectionEvent & { sessionId: string };

/** Messages the bridge relays to a WebSocket receiver, once the receiver is connected (a probe tells). */
async function receive(wsUrl: string): Promise<Msg[]> {
  const seen: Msg[] = [];
  createWebSocketReceiver({ server: wsUrl }).subscribe((m) => { seen.push(m as Msg); });
  const probe = createWebSocketInspector({ url: wsUrl });
  const probeId = `probe-${Math.random().toString(36).slice(2)}`;
  try {
    await until(() => {
      probe.actor(probeId);
      return seen.some((m) => m.type === '@xstate.actor' && m.sessionId === probeId);
    }, { intervalMs: 100, message: 'the receiver to be connected to the bridge' });
  } finally {
    probe.stop();
  }
  return seen;
}

describe('XState inspector', () => {
  it('streams @xstate.actor, @xstate.event and @xstate.snapshot of the workflow and task actors to the bridge', async () => {
    const inspector = node.inspector!;
    expect(inspector.port).toBeGreaterThan(0);
    expect(inspector.url).toBe(`http://localhost:${inspector.port}`);
    // The bridge page (it embeds the Stately inspector and relays the WebSocket to it).
    const page = await fetch(`http://127.0.0.1:${inspector.port}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`ws://localhost:${inspector.port}`);

    const seen = await receive(inspector.wsUrl);

    const domain = uniqueDomain('inspect');
    await registerOrderTypes(client, domain);
    let closed!: () => void;
    const done = new Promise<void>((resolve) => { closed = resolve; });
    const p = startOrderParticipants(client, domain, { pollTimeoutMs: 1000, onClosed: () => closed() });
    try {
      await client.call('StartWorkflowExecution', { domain, workflowId: 'order-inspected', workflowType: ORDER_WORKFLOW, input: '{"orderId":7}' });
      await done;
    } finally {
      await p.stop();
    }

    // A read of a run that is closing can rebuild a transient copy of it from history (new actors
    // fed the whole history at once): the live actors are the ones registered first.
    const actorsNamed = (name: string) => seen.filter((m) => m.type === '@xstate.actor' && (m as { name: string }).name === name).map((m) => m.sessionId);
    const eventsOf = (id: string) => seen.filter((m) => m.type === '@xstate.event' && m.sessionId === id).map((m) => (m as { event: { type: string } }).event.type);
    const snapshotsOf = (id: string) => seen.filter((m) => m.type === '@xstate.snapshot' && m.sessionId === id)
      .map((m) => (m as { snapshot: { value: unknown; status: string } }).snapshot);

    // The workflow execution actor: registered, fed the whole history, ending in closed.completed.
    const closedCompleted = (s: { value: unknown }) => JSON.stringify(s.value) === '{"closed":"completed"}';
    await until(() => {
      const [w] = actorsNamed('workflowExecution');
      return w !== undefined && snapshotsOf(w).some(closedCompleted);
    }, { message: 'the workflow actor to reach closed.completed' });
    const [workflow] = actorsNamed('workflowExecution');
    const wEvents = eventsOf(workflow!);
    expect(wEvents).toContain('WorkflowExecutionStarted');
    expect(wEvents.filter((t) => t === 'ActivityTaskCompleted')).toHaveLength(4);
    expect(wEvents).toContain('WorkflowExecutionCompleted');
    const wSnaps = snapshotsOf(workflow!);
    expect(wSnaps[0]!.value).toBe('open');
    const firstClosed = wSnaps.findIndex(closedCompleted);
    expect(wSnaps.slice(0, firstClosed).every((x) => x.value === 'open')).toBe(true);
    expect(wSnaps.slice(firstClosed).every(closedCompleted)).toBe(true);

    // One actor per activity task (four steps), each started then completed.
    const activities = () => actorsNamed('activityTask').slice(0, 4);
    await until(() => activities().length === 4
      && activities().every((a) => snapshotsOf(a).some((s) => s.value === 'completed')), { message: 'four completed activity actors' });
    for (const activity of activities()) {
      expect(eventsOf(activity)).toEqual(expect.arrayContaining(['ActivityTaskStarted', 'ActivityTaskCompleted']));
      expect(snapshotsOf(activity).map((s) => s.value)).toEqual(expect.arrayContaining(['scheduled', 'started', 'completed']));
    }
    // And one per decision task (four steps plus the closing decision), each completed.
    const decisions = actorsNamed('decisionTask').slice(0, 5);
    expect(decisions).toHaveLength(5);
    for (const decision of decisions) expect(eventsOf(decision)).toEqual(expect.arrayContaining(['DecisionTaskStarted', 'DecisionTaskCompleted']));
    // Each actor is its own root (a flat registry): distinct session ids.
    const ids = [workflow!, ...activities(), ...decisions];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('streams a Step Functions execution: its root actor and the spawned Parallel branches', async () => {
    const seen = await receive(node.inspector!.wsUrl);
    const branch = (result: string) => ({ StartAt: result, States: { [result]: { Type: 'Pass', Result: result, End: true } } });
    const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', {
      name: `inspected-${process.pid}`, roleArn: 'arn:aws:iam::000000000000:role/r',
      definition: JSON.stringify({ StartAt: 'Both', States: { Both: { Type: 'Parallel', Branches: [branch('left'), branch('right')], End: true } } }),
    });
    const { executionArn } = await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, input: '{"n":1}' });
    await until(async () => (await client.call<{ status: string }>('DescribeExecution', { executionArn })).status === 'SUCCEEDED', { message: 'the execution to succeed' });

    type Snap = { status: string; context?: { co?: { Execution?: { Id: string } } } };
    const ofExecution = (m: Msg) => m.type === '@xstate.snapshot' && (m as { snapshot: Snap }).snapshot.context?.co?.Execution?.Id === executionArn;
    await until(() => seen.filter(ofExecution).some((m) => (m as { snapshot: Snap }).snapshot.status === 'done'), { message: 'the root snapshot to be done' });
    const sessions = new Set(seen.filter(ofExecution).map((m) => m.sessionId));
    const actors = seen.filter((m) => m.type === '@xstate.actor' && sessions.has(m.sessionId)).map((m) => ({ id: m.sessionId, name: (m as { name: string }).name }));
    // The root (id 'root', the task keys' prefix) and one actor per branch, named after it.
    const root = actors.filter((a) => a.name === 'root');
    expect(root).toHaveLength(1);
    expect(actors.filter((a) => a.name.startsWith('root/')).map((a) => a.name).sort()).toEqual(['root/Both.1.0', 'root/Both.1.1']);
    const rootSnaps = seen.filter((m) => m.type === '@xstate.snapshot' && m.sessionId === root[0]!.id).map((m) => (m as { snapshot: Snap & { output?: unknown } }).snapshot);
    expect(rootSnaps.length).toBeGreaterThan(0);
    expect(rootSnaps.at(-1)).toMatchObject({ status: 'done', output: { status: 'SUCCEEDED', output: ['left', 'right'] } });
    expect(seen.some((m) => m.type === '@xstate.event' && m.sessionId === root[0]!.id)).toBe(true);
  });

  it('shows a Step Functions execution with the ASL state names as its machine\'s states', async () => {
    const seen = await receive(node.inspector!.wsUrl);
    const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', {
      name: `inspected-names-${process.pid}`, roleArn: 'arn:aws:iam::000000000000:role/r',
      definition: JSON.stringify({
        StartAt: 'Prepare order',
        States: {
          'Prepare order': { Type: 'Pass', Next: 'Big?' },
          'Big?': { Type: 'Choice', Choices: [{ Variable: '$.n', NumericGreaterThan: 0, Next: 'Take a nap' }], Default: 'Ship it' },
          'Take a nap': { Type: 'Wait', Seconds: 1, Next: 'Ship it' },
          'Ship it': { Type: 'Succeed' },
        },
      }),
    });
    const { executionArn } = await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, input: '{"n":1}' });
    type Snap = { status: string; value?: unknown; context?: { co?: { Execution?: { Id: string } } } };
    const ofExecution = (m: Msg) => m.type === '@xstate.snapshot' && (m as { snapshot: Snap }).snapshot.context?.co?.Execution?.Id === executionArn;
    const snaps = () => seen.filter(ofExecution).map((m) => (m as { snapshot: Snap }).snapshot);
    await until(() => snaps().some((s) => s.status === 'done'), { message: 'the execution to finish in the inspector' });
    const names = ['Big?', 'Prepare order', 'Ship it', 'Take a nap'];
    // The states the inspector shows the actor in: the user's state names (the engine's own start and
    // end states are $-prefixed, never an ASL name); the Wait is seen while it waits.
    const top = (v: unknown): string[] => (v === undefined ? [] : typeof v === 'string' ? [v] : Object.keys(v as object));
    const shown = new Set(snaps().flatMap((s) => top(s.value)));
    expect(shown).toContain('Take a nap');
    for (const k of shown) if (!k.startsWith('$')) expect(names).toContain(k);
    // The machine the inspector draws (the definition in @xstate.actor) has the ASL states as its nodes.
    const sessions = new Set(seen.filter(ofExecution).map((m) => m.sessionId));
    const root = seen.find((m) => m.type === '@xstate.actor' && sessions.has(m.sessionId) && (m as { name: string }).name === 'root') as { definition?: string } | undefined;
    expect(root?.definition).toBeDefined();
    const states = Object.keys((JSON.parse(root!.definition!) as { states: Record<string, unknown> }).states);
    expect(states.filter((k) => !k.startsWith('$')).sort()).toEqual(names);
  });

  it('is off unless asked for: no inspect option reaches createActor', () => {
    expect(createMachineSet(createSystemClock()).actorOptions).not.toHaveProperty('inspect');
    expect(inspectOptionsFromCli([], {})).toBeUndefined();
    expect(inspectOptionsFromCli(['--inspect'], {})).toEqual({ port: 8081 });
    expect(inspectOptionsFromCli([], { AF_INSPECT: '1', AF_INSPECT_PORT: '9000' })).toEqual({ port: 9000 });
    expect(inspectOptionsFromCli(['--inspect-port=9100'], { AF_INSPECT_PORT: '9000' })).toEqual({ port: 9100 });
    expect(() => inspectOptionsFromCli(['--inspect'], { AF_INSPECT_PORT: 'x' })).toThrow(/AF_INSPECT_PORT/);
  });
});
