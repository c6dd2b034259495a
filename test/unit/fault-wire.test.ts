import { describe, expect, it } from 'vitest';
import { Fault, isFault } from '../../src/protocol/faults.js';
import { faultToWire, fromWire, type WireReply } from '../../src/protocol/wire.js';
import { decode, encode } from '../../src/protocol/codec.js';
import { transient } from '../../src/sdk/answer.js';

/** What a NATS reply turns back into on the other side (msgpack both ways, as the transports send it). */
function acrossTheWire(err: unknown): unknown {
  try {
    fromWire(decode<WireReply>(encode(faultToWire(err))));
  } catch (e) {
    return e;
  }
  throw new Error('fromWire did not throw');
}

describe('faults with a retryable flag', () => {
  it('the flag crosses the wire both ways, with the name and message', () => {
    const yes = acrossTheWire(new Fault('ConflictException', "State machine 'm' changed concurrently", { retryable: true }));
    expect(isFault(yes, 'ConflictException')).toBe(true);
    expect(yes).toMatchObject({ message: "State machine 'm' changed concurrently", retryable: true });
    const no = acrossTheWire(new Fault('InternalFailure', 'the task was lost', { retryable: false }));
    expect(no).toMatchObject({ name: 'InternalFailure', retryable: false });
  });

  it('defaults to retryable for InternalFailure, ServiceUnavailable and ThrottlingException only (AWS SDKs retry those too)', () => {
    expect(new Fault('InternalFailure', 'x').retryable).toBe(true);
    expect(new Fault('ServiceUnavailable', 'x').retryable).toBe(true);
    expect(new Fault('ThrottlingException', 'Rate exceeded').retryable).toBe(true);
    expect(new Fault('UnknownResourceFault', 'Unknown domain: d').retryable).toBe(false);
    expect(new Fault('ConflictException', 'x').retryable).toBe(false);
    // Anything that is not a Fault is an internal failure: retryable.
    expect(acrossTheWire(new TypeError('boom'))).toMatchObject({ name: 'InternalFailure', message: 'internal error', retryable: true });
  });

  it('a reply without the flag (an older node) gets the default of its name', () => {
    const e = (reply: WireReply) => { try { fromWire(reply); } catch (x) { return x; } return undefined; };
    expect(e({ fault: { name: 'ThrottlingException', message: 'Rate exceeded' } })).toMatchObject({ retryable: true });
    expect(e({ fault: { name: 'TaskDoesNotExist', message: 'gone' } })).toMatchObject({ retryable: false });
  });

  it("the SDK's resend check reads the flag, not the fault name", () => {
    expect(transient(new Fault('ConflictException', 'x', { retryable: true }))).toBe(true);
    expect(transient(new Fault('InternalFailure', 'x', { retryable: false }))).toBe(false);
    expect(transient(new Fault('ValidationException', 'x'))).toBe(false);
    expect(transient(Object.assign(new Error('no responders'), { name: 'NoResponders' }))).toBe(true);
  });
});
