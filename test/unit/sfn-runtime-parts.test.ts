import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TaskTokens } from '../../src/engine/task-token.js';
import { encode } from '../../src/protocol/codec.js';
import { isFault } from '../../src/protocol/faults.js';
import { subjects } from '../../src/nats/subjects.js';
import { toWireEvent } from '../../src/sfn/kind/sfn-events.js';
import { decodeSfnTaskToken, encodeSfnTaskToken } from '../../src/sfn/kind/sfn-task-token.js';

describe('Step Functions runtime parts', () => {
  it('task tokens round-trip; anything else (garbage, rebuilt, altered, another key, an SWF token) is InvalidToken', () => {
    const tokens = new TaskTokens(randomBytes(32));
    const ref = { executionArn: 'arn:aws:states:us-east-1:000000000000:execution:sm:x', partition: 3, key: 'root#2' };
    const token = encodeSfnTaskToken(tokens, ref);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeSfnTaskToken(tokens, token)).toEqual(ref);
    const raw = Buffer.from(token, 'base64url');
    const altered = Buffer.from(raw);
    altered[altered.length - 1] ^= 1;
    const rebuilt = Buffer.concat([Buffer.alloc(16), encode([1, ref.executionArn, ref.partition, 'root#3'])]).toString('base64url');
    const swf = tokens.encodeTaskToken({ domain: 'd', workflowId: 'w', runId: 'r', kind: 'a', scheduledEventId: 5, startedEventId: 6 });
    for (const bad of ['', 'garbage!', Buffer.from('[2,"a",1,"k"]').toString('base64url'), altered.toString('base64url'), rebuilt, swf,
      encodeSfnTaskToken(new TaskTokens(randomBytes(32)), ref)]) {
      let err: unknown;
      try { decodeSfnTaskToken(tokens, bad); } catch (e) { err = e; }
      expect(isFault(err, 'InvalidToken')).toBe(true);
    }
  });

  it('events go on the wire with epoch seconds, previousEventId and the details member; data can be left out', () => {
    const e = { type: 'ExecutionStarted' as const, id: 1, at: 1_500, prev: 0, attrs: { input: '{}', inputDetails: { truncated: false }, roleArn: 'r' } };
    expect(toWireEvent(e)).toEqual({ timestamp: 1.5, type: 'ExecutionStarted', id: 1, previousEventId: 0, executionStartedEventDetails: e.attrs });
    expect(toWireEvent(e, false).executionStartedEventDetails).toEqual({ roleArn: 'r' });
  });

  it('every …StateEntered / …StateExited goes in the one member the AWS model has; events the model gives no details have none', () => {
    const entered = { type: 'PassStateEntered' as const, id: 2, at: 2_000, prev: 1, attrs: { name: 'P', input: '{"a":1}', inputDetails: { truncated: false } } };
    expect(toWireEvent(entered)).toEqual({ timestamp: 2, type: 'PassStateEntered', id: 2, previousEventId: 1, stateEnteredEventDetails: entered.attrs });
    const exited = { type: 'TaskStateExited' as const, id: 9, at: 3_000, prev: 8, attrs: { name: 'T', output: '1', outputDetails: { truncated: false } } };
    expect(toWireEvent(exited)).toEqual({ timestamp: 3, type: 'TaskStateExited', id: 9, previousEventId: 8, stateExitedEventDetails: exited.attrs });
    expect(toWireEvent({ ...exited, type: 'MapStateExited' }, false).stateExitedEventDetails).toEqual({ name: 'T' });
    expect(toWireEvent({ type: 'ParallelStateStarted', id: 4, at: 4_000, prev: 3, attrs: {} })).toEqual({ timestamp: 4, type: 'ParallelStateStarted', id: 4, previousEventId: 3 });
    expect(toWireEvent({ type: 'MapStateStarted', id: 4, at: 4_000, prev: 3, attrs: { length: 2 } }).mapStateStartedEventDetails).toEqual({ length: 2 });
  });

  it('execution histories live under ~sfn, which no escaped SWF domain can produce', () => {
    const s = subjects('af');
    expect(s.sfnHistory(2, 'my sm', 'run.1')).toBe('af.hist.2.~sfn.my~20sm.run~2e1');
    expect(s.history(2, '~sfn', 'w', 'r')).toBe('af.hist.2.~7esfn.w.r');
  });
});
