import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineNode } from '../../src/server.js';
import { OPERATIONS } from '../../src/swf/operations.js';
import { startTwoNodes, type TwoNodes } from '../helpers/two-nodes.js';
import { until } from '../helpers/until.js';

/**
 * Issue 21: a task scheduled while no poller waited on its owner is held by the owner for its next
 * poller (no JetStream round trip, no hop). It goes to JetStream, for a poll on any node (which
 * then asks the owner to start it), when a node whose pollers starve asks for it, or after
 * HOLD_MAX_MS; it is counted meanwhile.
 */
let nodes: TwoNodes;
let a: EngineNode;
let b: EngineNode;
const wt = { name: 'held', version: '1' };

beforeAll(async () => {
  nodes = await startTwoNodes();
  ({ a, b } = nodes);
});
afterAll(async () => { await nodes?.stop(); });

/** An SWF action served by `node` (as if the request had entered there). */
const call = (node: EngineNode, action: string, input: object) => OPERATIONS[action]!(node.ctx, input) as Promise<any>;

async function domainWithType(name: string): Promise<string> {
  await call(a, 'RegisterDomain', { name, workflowExecutionRetentionPeriodInDays: '1' });
  await call(a, 'RegisterWorkflowType', { domain: name, ...wt, defaultTaskList: { name: 'deciders' }, defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '600', defaultChildPolicy: 'TERMINATE' });
  return name;
}

/** A workflow id whose partition `node` owns. */
function idOn(node: EngineNode, domain: string, tag: string): string {
  for (let i = 0; ; i++) if (node.router.owns(node.router.partitionOf(domain, `${tag}-${i}`))) return `${tag}-${i}`;
}

async function start(domain: string, workflowId: string, taskPriority = '0'): Promise<void> {
  await call(a, 'StartWorkflowExecution', { domain, workflowId, workflowType: wt, taskPriority });
}

/** A poll that entered on `node`: the workflow id it got, or undefined. */
async function pollOn(node: EngineNode, domain: string, ms = 3000): Promise<string | undefined> {
  const r = await call(node, 'PollForDecisionTask', { domain, taskList: { name: 'deciders' }, afPollTimeoutMs: ms });
  return r.workflowExecution?.workflowId as string | undefined;
}

const pending = async (domain: string) => (await call(a, 'CountPendingDecisionTasks', { domain, taskList: { name: 'deciders' } })).count as number;
const remoteStarts = () => a.router.ownerCalls().remote + b.router.ownerCalls().remote;

describe('tasks held by their owner', () => {
  it('the owner hands out its own task with no hop and no consumer; another node still gets it, through the owner', async () => {
    const domain = await domainWithType('held-own');
    const consumers = async () => (await a.nats.jsm.streams.info(a.nats.subjects.streams.tasks)).state.consumer_count;
    const baseline = await consumers();
    const mine = idOn(a, domain, 'mine');
    await start(domain, mine);
    expect(await pending(domain)).toBe(1);
    const hops = remoteStarts();
    expect(await pollOn(a, domain)).toBe(mine);
    expect(remoteStarts()).toBe(hops);
    expect(await consumers()).toBe(baseline);
    // Its message left JetStream once the owner started it.
    await until(async () => (await pending(domain)) === 0, { timeoutMs: 5000 });

    // With no poller on its owner, a poll on the other node asks for it, takes it from JetStream and asks the owner to start it.
    const stolen = idOn(a, domain, 'stolen');
    await start(domain, stolen);
    expect(await pollOn(b, domain)).toBe(stolen);
    expect(remoteStarts()).toBe(hops + 1);
    expect(await pending(domain)).toBe(0);
    // The owner holds it no more: its next poll gets nothing.
    expect(await pollOn(a, domain, 1000)).toBeUndefined();
  }, 30_000);

  it('within a priority a node takes its own tasks first; a higher priority anywhere goes first', async () => {
    const domain = await domainWithType('held-order');
    const theirs = idOn(b, domain, 'theirs');
    const mine1 = idOn(a, domain, 'mine1');
    const mine2 = idOn(a, domain, 'mine2');
    const urgent = idOn(b, domain, 'urgent');
    await start(domain, theirs);
    await start(domain, mine1);
    await start(domain, mine2);
    // Scheduling order within a's own tasks; b's older one waits for b's pollers, or for a's when a holds none
    // (b publishes what it holds after HOLD_MAX_MS, or at once when a's pollers starve).
    expect(await pollOn(a, domain)).toBe(mine1);
    await start(domain, urgent, '5');
    await until(async () => (await pending(domain)) === 3, { timeoutMs: 5000 });
    expect(await pollOn(a, domain)).toBe(urgent);
    expect(await pollOn(a, domain)).toBe(mine2);
    expect(await pollOn(a, domain)).toBe(theirs);
    await until(async () => (await pending(domain)) === 0, { timeoutMs: 5000 });
  }, 30_000);

  it('a task of a run that closed is not handed out', async () => {
    const domain = await domainWithType('held-closed');
    const gone = idOn(a, domain, 'gone');
    await start(domain, gone);
    await call(a, 'TerminateWorkflowExecution', { domain, workflowId: gone });
    await until(async () => (await pending(domain)) === 0, { timeoutMs: 5000 });
    expect(await pollOn(a, domain, 1000)).toBeUndefined();
  }, 30_000);
});
