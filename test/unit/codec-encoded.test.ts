import { describe, expect, it } from 'vitest';
import { decode, encode, withEncoding } from '../../src/protocol/codec.js';

describe('withEncoding (msgpack bytes kept with a value)', () => {
  const event = { eventId: 3, eventType: 'ActivityTaskCompleted', eventTimestamp: 1.5, activityTaskCompletedEventAttributes: { result: 'é', n: [1, 2, { b: null }] } };

  it('packs to the same bytes as the plain value, inside anything that holds it', () => {
    const { value, bytes } = withEncoding(event);
    expect(bytes).toBe(encode(event).length);
    const reply = { ok: { events: [value, value], taskToken: 't' } };
    const plain = { ok: { events: [event, event], taskToken: 't' } };
    expect(Buffer.from(encode(reply)).equals(Buffer.from(encode(plain)))).toBe(true);
    encode({ filler: 'x'.repeat(200_000) }); // the packer's buffer moves on; the kept bytes do not
    expect(decode(encode(reply))).toEqual(plain);
  });

  it('reads as the plain value in process and as JSON', () => {
    const { value } = withEncoding(event);
    expect({ ...value }).toEqual(event);
    expect(JSON.stringify(value)).toBe(JSON.stringify(event));
    expect(Object.keys(value)).toEqual(Object.keys(event));
  });

  it('never decodes its extension code from the wire', () => {
    expect(() => decode(Uint8Array.from([0xd4, 0x7e, 0]))).toThrow(/not a wire type/);
  });
});
