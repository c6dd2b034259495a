import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import type { Checksum, SourceData } from '@smithy/types';

const bytes = (d: SourceData): Buffer | string =>
  typeof d === 'string' ? d : ArrayBuffer.isView(d) ? Buffer.from(d.buffer, d.byteOffset, d.byteLength) : Buffer.from(d);

/**
 * SHA-256 (and HMAC-SHA-256 when given a secret) on node:crypto, in the shape @smithy/signature-v4
 * asks for (`new Sha256(secret?)`, `update`, `digest`, `reset`); the key stays in this object for reset().
 */
export class Sha256 implements Checksum {
  readonly digestLength = 32;
  private hash: Hash | Hmac;
  private readonly fresh: () => Hash | Hmac;

  constructor(secret?: SourceData) {
    const key = secret === undefined ? undefined : bytes(secret);
    this.fresh = key === undefined ? () => createHash('sha256') : () => createHmac('sha256', key);
    this.hash = this.fresh();
  }

  update(chunk: Uint8Array | string): void {
    this.hash.update(typeof chunk === 'string' ? chunk : bytes(chunk));
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }

  reset(): void {
    this.hash = this.fresh();
  }
}
