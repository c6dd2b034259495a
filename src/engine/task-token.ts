import { createHmac, timingSafeEqual } from 'node:crypto';
import { decode, encode } from '../protocol/codec.js';
import { Fault } from '../protocol/faults.js';
import { TOKEN_MAC_BYTES } from '../protocol/partition-hint.js';

/** What a task token names: one attempt of one task of one run. Opaque to users. */
export interface TaskRef {
  domain: string;
  workflowId: string;
  runId: string;
  kind: 'd' | 'a';
  scheduledEventId: number;
  startedEventId: number;
}

/** How many tokens sealed lately `open` knows without checking their MAC. */
const SEALED_KEPT = 4096;
export const TOKEN_KEY_BYTES = 32;

/** What a token opens to: its fields, or why it does not open. */
export type Opened = { fields: unknown[] } | { refused: 'malformed' | 'forged' };

/**
 * Seals and opens task tokens with the cluster's key (KV `af_cluster`, engine-only; see
 * cluster/task-token-key.ts). A token is base64url of a MAC over its purpose and payload, then the
 * msgpack payload: the ids in it are readable (GetWorkflowExecutionHistory shows them anyway), but
 * a token rebuilt or altered by anyone without the key is refused.
 */
export class TaskTokens {
  constructor(private readonly key: Uint8Array) {
    if (key.length < TOKEN_KEY_BYTES) throw new Error(`task token key must be at least ${TOKEN_KEY_BYTES} bytes`);
  }

  private mac(purpose: string, payload: Uint8Array): Buffer {
    return createHmac('sha256', this.key).update(`${purpose}\u0000`).update(payload).digest().subarray(0, TOKEN_MAC_BYTES);
  }

  /** A key of its own for another use of the cluster's secret (the console's session cookies), the same on every node. */
  derivedKey(use: 'console-session'): Buffer {
    return createHmac('sha256', this.key).update(`key\u0000${use}`).digest();
  }

    seal(purpose: 'swf' | 'sfn', fields: unknown[]): string {
    const payload = encode(fields);
    const token = Buffer.concat([this.mac(purpose, payload), payload]).toString('base64url');
    // Kept as open would read them back (the msgpack round trip), not as given.
    this.remember(`${purpose}\u0000${token}`, decode(payload));
    return token;
  }

  /**
   * Tokens this node sealed lately, with their fields: the answer to a task usually comes back to
   * the node that handed it out, and opening a token it made itself needs no second HMAC (two per
   * task were ~3 % of a busy node's CPU). Only an exact token string this node produced hits.
   */
  private readonly sealed = new Map<string, readonly unknown[]>();

  private remember(key: string, fields: unknown[]): void {
    if (this.sealed.size >= SEALED_KEPT) this.sealed.delete(this.sealed.keys().next().value!);
    this.sealed.set(key, fields);
  }

  open(purpose: 'swf' | 'sfn', token: string): Opened {
    const known = this.sealed.get(`${purpose}\u0000${token}`);
    if (known) return { fields: [...known] };
    if (!/^[A-Za-z0-9_-]+$/.test(token)) return { refused: 'malformed' };
    const raw = Buffer.from(token, 'base64url');
    // One token, one spelling: the decoder drops a trailing character that makes no byte (and a last
    // character's unused bits), so an altered string could open as the token it was made from.
    if (raw.length <= TOKEN_MAC_BYTES || raw.toString('base64url') !== token) return { refused: 'malformed' };
    const payload = raw.subarray(TOKEN_MAC_BYTES);
    if (!timingSafeEqual(raw.subarray(0, TOKEN_MAC_BYTES), this.mac(purpose, payload))) return { refused: 'forged' };
    try {
      const fields = decode(payload);
      return Array.isArray(fields) ? { fields } : { refused: 'malformed' };
    } catch {
      return { refused: 'malformed' };
    }
  }

  /** An SWF decision or activity task token. */
  encodeTaskToken(t: TaskRef): string {
    return this.seal('swf', [1, t.domain, t.workflowId, t.runId, t.kind, t.scheduledEventId, t.startedEventId]);
  }

  /**
   * Reads an SWF token: one that is not a token at all is a ValidationException; one this cluster did
   * not issue (rebuilt, altered, or of the other kind) names no task: UnknownResourceFault.
   */
  decodeTaskToken(token: string, kind: 'd' | 'a'): TaskRef {
    const unknown = () => new Fault('UnknownResourceFault', `Unknown ${kind === 'd' ? 'decision' : 'activity'} task`);
    const o = this.open('swf', token);
    if ('refused' in o) {
      if (o.refused === 'forged') throw unknown();
      throw new Fault('ValidationException', 'Invalid token');
    }
    const v = o.fields;
    if (v.length !== 7 || v[0] !== 1 || v.slice(1, 4).some((x) => typeof x !== 'string')
      || typeof v[5] !== 'number' || typeof v[6] !== 'number') throw new Fault('ValidationException', 'Invalid token');
    if (v[4] !== kind) throw unknown();
    return { domain: v[1] as string, workflowId: v[2] as string, runId: v[3] as string, kind, scheduledEventId: v[5], startedEventId: v[6] };
  }
}
