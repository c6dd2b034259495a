import { addExtension, Packr, Unpackr } from 'msgpackr';

// Plain msgpack maps, no shared record structures: history outlives every process that wrote it.
const packr = new Packr({ useRecords: false, moreTypes: false });
const unpackr = new Unpackr({ useRecords: false });

export function encode(value: unknown): Uint8Array {
  return packr.pack(value);
}

export function decode<T = unknown>(data: Uint8Array): T {
  return unpackr.unpack(data) as T;
}

const BYTES = Symbol('msgpack bytes');

/** The prototype of values made by `withEncoding`: a plain object whose msgpack form is kept. */
class Encoded {
  declare [BYTES]: Uint8Array;
}

// An Encoded value is packed by copying its bytes in place: the same bytes `encode` gave for the
// plain object, with no extension header (pack writes nothing of its own when it returns nothing).
// Its type code is never on the wire; a message that uses it anyway fails to decode.
addExtension({
  Class: Encoded,
  type: 0x7e,
  pack(value: Encoded, allocate: (size: number) => { target: Uint8Array; position: number }) {
    const bytes = value[BYTES];
    const { target, position } = allocate(bytes.length);
    target.set(bytes, position);
  },
  unpack() { throw new Error('msgpack extension 0x7e is not a wire type'); },
} as never);

/**
 * `value` with its msgpack encoding kept: `encode` of anything that holds it copies those bytes
 * instead of packing it again (a decision task's reply repeats every event of the history so far).
 * Its own fields are `value`'s, so in-process readers and JSON.stringify see the same object.
 * Only for values that never change afterwards.
 */
export function withEncoding<T extends object>(value: T): { value: T; bytes: number } {
  // A copy: msgpackr hands out views of a buffer it goes on writing into.
  const bytes = packr.pack(value).slice();
  const kept = Object.assign(new Encoded(), value) as unknown as T & Encoded;
  // Not enumerable: copies ({ ...value }) and comparisons see only value's own fields.
  Object.defineProperty(kept, BYTES, { value: bytes });
  return { value: kept, bytes: bytes.length };
}
