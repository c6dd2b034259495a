import {
  CreateActivityCommand, CreateStateMachineCommand, DescribeExecutionCommand, GetExecutionHistoryCommand,
  SFNClient, type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll } from 'vitest';
import type { EngineNode, StartOptions } from '../../src/server.js';
import { startTestEngine, type NodesOnOneNats, type TestEngine } from './engine.js';
import { ANY_CREDENTIALS, REGION } from './swf-http.js';
import { until } from './until.js';

export const SFN_ROLE = 'arn:aws:iam::000000000000:role/sfn-test';

/**
 * The AWS SDK's Step Functions client against the gateway (one attempt: faults surface at once).
 * disableHostPrefix: StartSyncExecution would go to `sync-127.0.0.1` otherwise (see start-sync-execution.ts).
 */
export function sfnClient(port: number): SFNClient {
  return new SFNClient({ endpoint: `http://127.0.0.1:${port}`, region: REGION, credentials: ANY_CREDENTIALS, maxAttempts: 1, disableHostPrefix: true });
}

/** An engine with the HTTP gateway on a free port (no access keys) and a Step Functions client for it. */
export interface SfnHttpEngine {
  engine: TestEngine;
  sfn: SFNClient;
  stop(): Promise<void>;
}

export async function startSfnHttpEngine(): Promise<SfnHttpEngine> {
  const engine = await startTestEngine({ http: { port: 0, accessKeys: {} } });
  const sfn = sfnClient(engine.node.http!.port);
  return { engine, sfn, async stop() { sfn.destroy(); await engine.stop(); } };
}

/** One engine for the test file that calls this (started before its tests, stopped after): its client, once started. */
export function sfnHttpEngineForFile(): { readonly sfn: SFNClient } {
  let h: SfnHttpEngine | undefined;
  beforeAll(async () => { h = await startSfnHttpEngine(); });
  afterAll(async () => { await h?.stop(); });
  return { get sfn() { return h!.sfn; } };
}

/** Stops a node of `env` (its client first) and starts the one that comes after, with a client for it: an engine restart. */
export async function restartSfnNode(env: NodesOnOneNats, node: EngineNode, sfn: SFNClient, opts: StartOptions): Promise<{ node: EngineNode; sfn: SFNClient }> {
  sfn.destroy();
  await node.stop();
  env.nodes.splice(env.nodes.indexOf(node), 1);
  const next = await env.startEngine(opts);
  return { node: next, sfn: sfnClient(next.http!.port) };
}

let seq = 0;
/** A name unique in this process. */
export const freshName = (label: string): string => `${label}-${process.pid}-${++seq}`;

/** Creates a state machine of `definition` (under a fresh name unless given); returns its ARN. */
export async function createMachine(sfn: SFNClient, definition: object, name = freshName('sm')): Promise<string> {
  const r = await sfn.send(new CreateStateMachineCommand({ name, roleArn: SFN_ROLE, definition: JSON.stringify(definition) }));
  return r.stateMachineArn!;
}

/** Creates an activity and a state machine whose definition `build(activityArn)` returns. */
export async function machineWithActivity(sfn: SFNClient, build: (activityArn: string) => object): Promise<{ activityArn: string; stateMachineArn: string }> {
  const { activityArn } = await sfn.send(new CreateActivityCommand({ name: freshName('act') }));
  const { stateMachineArn } = await sfn.send(new CreateStateMachineCommand({
    name: freshName('sm'), roleArn: SFN_ROLE, definition: JSON.stringify(build(activityArn!)),
  }));
  return { activityArn: activityArn!, stateMachineArn: stateMachineArn! };
}

/** One Task state on an activity, then End. */
export const oneTask = (activityArn: string, extra: object = {}): object => ({
  StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, End: true, ...extra } },
});

/** Every event of an execution, following nextToken. */
export async function fullHistory(sfn: SFNClient, executionArn: string): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(new GetExecutionHistoryCommand({ executionArn, nextToken }));
    events.push(...page.events!);
    nextToken = page.nextToken;
  } while (nextToken);
  return events;
}

/** History as compact text: `1 ExecutionStarted(0) / 2 TaskStateEntered(0) / …` (previousEventId in brackets). */
export function compactSfn(events: HistoryEvent[]): string {
  return events.map((e) => `${e.id} ${e.type}(${e.previousEventId})`).join(' / ');
}

/** Waits until the execution is no longer RUNNING; returns its description. */
export async function waitClosed(sfn: SFNClient, executionArn: string, timeoutMs = 15_000) {
  let d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
  await until(async () => {
    d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    return d.status !== 'RUNNING';
  }, { timeoutMs, intervalMs: 50, message: `${executionArn} to close` });
  return d;
}

/** The error a call fails with (the test fails when it succeeds). */
export async function rejection(p: Promise<unknown>): Promise<any> {
  try { await p; } catch (err) { return err; }
  throw new Error('expected the call to fail');
}
