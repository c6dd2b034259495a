import { StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subjects } from '../../src/nats/subjects.js';
import { Fault } from '../../src/protocol/faults.js';
import { awaitExecution, type ChildWatchDeps } from '../../src/sfn/integrations/child-executions.js';
import { createMachine, rejection, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';

let h: SfnHttpEngine | undefined;
beforeAll(async () => { h = await startSfnHttpEngine(); });
afterAll(async () => { await h?.stop(); });

/** Deps on the test engine's node, counting the DescribeExecution calls made. */
function watchDeps(opts: { fallbackMs?: number; prefix?: string } = {}): { deps: ChildWatchDeps; describes: () => number } {
  const node = h!.engine.node;
  let n = 0;
  const deps: ChildWatchDeps = {
    call: async (action, input) => { if (action === 'DescribeExecution') n += 1; return h!.engine.client.call(action, input as object); },
    log: pino({ level: 'silent' }),
    nc: node.nats.nc,
    subjects: opts.prefix ? subjects(opts.prefix) : node.ctx.subjects,
    fallbackMs: opts.fallbackMs,
  };
  return { deps, describes: () => n };
}

const waitFor = (seconds: number) => ({ StartAt: 'W', States: { W: { Type: 'Wait', Seconds: seconds, Next: 'Done' }, Done: { Type: 'Pass', Result: { waited: seconds }, End: true } } });

async function start(stateMachineArn: string): Promise<string> {
  return (await h!.sfn.send(new StartExecutionCommand({ stateMachineArn, input: '{"n":1}' }))).executionArn!;
}

describe('awaitExecution', () => {
  it('wakes on the close heard on the visibility subject, not by polling (fallback of a minute)', async () => {
    const arn = await start(await createMachine(h!.sfn, waitFor(2)));
    const { deps, describes } = watchDeps({ fallbackMs: 60_000 });
    const t0 = Date.now();
    const d = await awaitExecution(deps, arn, new AbortController().signal);
    const took = Date.now() - t0;
    expect({ status: d.status, output: JSON.parse(d.output!), input: d.input, executionArn: d.executionArn }).toEqual({ status: 'SUCCEEDED', output: { waited: 2 }, input: '{"n":1}', executionArn: arn });
    expect(typeof d.startDate).toBe('number');
    expect(d.stopDate).toBeGreaterThanOrEqual(d.startDate + 1.9);
    // One look at the start, one when the close is heard (a second if the store read lagged behind).
    expect(describes()).toBeLessThanOrEqual(3);
    expect(took).toBeLessThan(30_000);
  }, 40_000);

  it('hears the close on a connection of its own (the execution runs on another node than the waiter)', async () => {
    const nc = await connect({ servers: h!.engine.url, noAsyncTraces: true });
    try {
      const arn = await start(await createMachine(h!.sfn, waitFor(1)));
      const { deps, describes } = watchDeps({ fallbackMs: 60_000 });
      const d = await awaitExecution({ ...deps, nc }, arn, new AbortController().signal);
      expect(d.status).toBe('SUCCEEDED');
      expect(describes()).toBeLessThanOrEqual(3);
    } finally {
      await nc.close();
    }
  }, 40_000);

  it('answers at once for an execution that already closed', async () => {
    const arn = await start(await createMachine(h!.sfn, waitFor(0)));
    await waitClosed(h!.sfn, arn);
    const { deps, describes } = watchDeps({ fallbackMs: 60_000 });
    const d = await awaitExecution(deps, arn, new AbortController().signal);
    expect(d.status).toBe('SUCCEEDED');
    expect(describes()).toBe(1);
  });

  it('answers an ABORTED execution with its stop date', async () => {
    const arn = await start(await createMachine(h!.sfn, waitFor(600)));
    const { deps } = watchDeps({ fallbackMs: 60_000 });
    const waiting = awaitExecution(deps, arn, new AbortController().signal);
    await h!.sfn.send(new StopExecutionCommand({ executionArn: arn, error: 'Halt', cause: 'by the test' }));
    const d = await waiting;
    expect({ status: d.status, error: d.error, cause: d.cause, output: d.output }).toEqual({ status: 'ABORTED', error: 'Halt', cause: 'by the test', output: undefined });
    expect(typeof d.stopDate).toBe('number');
  }, 20_000);

  it('falls back to describing every fallbackMs when no close is heard', async () => {
    const arn = await start(await createMachine(h!.sfn, waitFor(1)));
    // Listening under another prefix: nothing is heard, only the fallback finds the close.
    const { deps, describes } = watchDeps({ fallbackMs: 300, prefix: 'nothing-here' });
    const d = await awaitExecution(deps, arn, new AbortController().signal);
    expect(d.status).toBe('SUCCEEDED');
    expect(describes()).toBeGreaterThanOrEqual(3);
  }, 20_000);

  it('rejects with the reason when the signal is aborted, and stops listening', async () => {
    const arn = await start(await createMachine(h!.sfn, waitFor(600)));
    const { deps } = watchDeps({ fallbackMs: 60_000 });
    const ac = new AbortController();
    const subs = () => (h!.engine.node.nats.nc as unknown as { protocol: { subscriptions: { size(): number } } }).protocol.subscriptions.size();
    const before = subs();
    const waiting = awaitExecution(deps, arn, ac.signal);
    await new Promise((r) => setTimeout(r, 200));
    expect(subs()).toBe(before + 1);
    const reason = new Error('parent ended');
    ac.abort(reason);
    expect(await rejection(waiting)).toBe(reason);
    expect(subs()).toBe(before);
    await h!.sfn.send(new StopExecutionCommand({ executionArn: arn }));
  });

  it('an execution that does not exist is ExecutionDoesNotExist; a malformed ARN InvalidArn', async () => {
    const { deps } = watchDeps();
    const missing = 'arn:aws:states:us-east-1:123456789012:execution:no-such-machine:no-such-run';
    const err = await rejection(awaitExecution(deps, missing, new AbortController().signal));
    expect(err).toBeInstanceOf(Fault);
    expect(err.name).toBe('ExecutionDoesNotExist');
    const bad = await rejection(awaitExecution(deps, 'not-an-arn', new AbortController().signal));
    expect(bad.name).toBe('InvalidArn');
  });
});
