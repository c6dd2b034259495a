import { Packr, Unpackr } from 'msgpackr';

// Plain msgpack maps, no shared record structures: history outlives every process that wrote it.
const packr = new Packr({ useRecords: false, moreTypes: false });
const unpackr = new Unpackr({ useRecords: false });

export function encode(value: unknown): Uint8Array {
  return packr.pack(value);
}

export function decode<T = unknown>(data: Uint8Array): T {
  return unpackr.unpack(data) as T;
}
