import { KvWatchInclude, type KV } from '@nats-io/kv';
import { JetStreamApiError } from '@nats-io/jetstream';
import { encode } from '../protocol/codec.js';
import { kvToken } from '../nats/subjects.js';
import { JsCodes } from '../history/history-store.js';
import { DamagedRecordError, UNREPORTED, type Quarantine } from '../history/quarantine.js';
import type { DomainRecord, TypeKind, TypeRecord } from './records.js';
import { retry } from '../protocol/retry.js';

interface Cached<T> { value: T | null; revision: number }
/** A cached key whose stored record is damaged: reads of it answer the error. */
interface CachedEntry { value: unknown; revision: number; damaged?: DamagedRecordError }

/** Thrown by `create` when the key exists and by `update` when another writer changed it first. */
export class RegistryConflictError extends Error {
  constructor(readonly key: string) {
    super(`registry key ${key} changed concurrently`);
    this.name = 'RegistryConflictError';
  }
}

/**
 * Runs a read-modify-write of registry keys again while another writer beats it to a key
 * (RegistryConflictError), after a short jittered wait (2 ms doubling to 25 ms, up to as much again),
 * for `attempts` tries (default: until it goes through); the last conflict is thrown.
 */
/**
 * The tries of a request's read-check-write before its conflict is an error. Each conflict means
 * another writer got through, and the next try reads what it wrote (its record, or its fault).
 */
export const REQUEST_CAS_ATTEMPTS = 20;

export function retryOnConflict<T>(step: () => Promise<T>, attempts?: number): Promise<T> {
  return retry(step, { firstMs: 2, capMs: 25, jitter: 1, attempts, retryable: (e) => e instanceof RegistryConflictError });
}

/**
 * Domains and types in the KV bucket `af_registry`, read through a local cache that a KV watch
 * keeps current (types are read on every ScheduleActivityTask decision).
 */
export class Registry {
  private readonly cache = new Map<string, CachedEntry>();
  private stopWatch: (() => void) | undefined;

  constructor(private readonly kv: KV, private readonly quarantine: Quarantine = UNREPORTED) {}

  /** The one decoder of registry records (shape checked by key); a damaged one is quarantined. */
  private entry(e: { bucket: string; key: string; revision: number; operation: string; value: Uint8Array }): CachedEntry {
    if (e.operation !== 'PUT') return { value: null, revision: e.revision };
    const at = { stream: `KV_${e.bucket}`, subject: `$KV.${e.bucket}.${e.key}`, seq: e.revision };
    try {
      return { value: this.quarantine.decode('registry', e.value, at), revision: e.revision };
    } catch (err) {
      if (!(err instanceof DamagedRecordError)) throw err;
      return { value: null, revision: e.revision, damaged: err };
    }
  }

  static domainKey(domain: string): string {
    return `d.${kvToken(domain)}`;
  }

  static typeKey(kind: TypeKind, domain: string, name: string, version: string): string {
    return `${kind === 'workflow' ? 'wt' : 'at'}.${kvToken(domain)}.${kvToken(name)}.${kvToken(version)}`;
  }

  static typePrefix(kind: TypeKind, domain: string): string {
    return `${kind === 'workflow' ? 'wt' : 'at'}.${kvToken(domain)}`;
  }

  /**
   * Loads every record and keeps the cache current with one KV watch, so lists are served from
   * memory: a `kv.keys()` per list call made a JetStream consumer each time, and a burst of
   * ListDomains or Register*Type calls hit the server's consumer limit.
   */
  async start(): Promise<void> {
    const { values } = await this.kv.status();
    const it = await this.kv.watch({ include: KvWatchInclude.LastValue });
    this.stopWatch = () => it.stop();
    let loaded!: () => void;
    const initial = new Promise<void>((resolve) => { loaded = resolve; });
    if (values === 0) loaded();
    void (async () => {
      for await (const e of it) {
        const cur = this.cache.get(e.key);
        if (!cur || cur.revision < e.revision) this.cache.set(e.key, this.entry(e));
        if (e.delta === 0) loaded();
      }
    })().catch(() => undefined).finally(() => loaded());
    await initial;
  }

  stop(): void {
    this.stopWatch?.();
  }

  /**
   * A key's record; DamagedRecordError (InternalFailure naming it) when the stored record is damaged.
   * `fresh` reads the bucket instead of the cache: the watch delivers another node's write a moment
   * after it is acknowledged, and a Describe or ListTags right after a write elsewhere must see it.
   */
  async get<T>(key: string, opts: { fresh?: boolean } = {}): Promise<Cached<T>> {
    let hit = opts.fresh ? undefined : this.cache.get(key);
    if (!hit) {
      const e = await this.kv.get(key);
      hit = e ? this.entry(e) : { value: null, revision: 0 };
      const cur = this.cache.get(key);
      if (!cur || cur.revision < hit.revision) this.cache.set(key, hit);
      else hit = cur;
    }
    if (hit.damaged) throw hit.damaged;
    return hit as Cached<T>;
  }

  async create<T>(key: string, value: T): Promise<void> {
    try {
      const revision = await this.kv.create(key, encode(value));
      this.cache.set(key, { value, revision });
    } catch (e) {
      if (e instanceof JetStreamApiError && e.code === JsCodes.StreamWrongLastSequence) throw new RegistryConflictError(key);
      throw e;
    }
  }

  async update<T>(key: string, value: T, revision: number): Promise<void> {
    try {
      const next = await this.kv.update(key, encode(value), revision);
      this.cache.set(key, { value, revision: next });
    } catch (e) {
      if (e instanceof JetStreamApiError && e.code === JsCodes.StreamWrongLastSequence) {
        this.cache.delete(key); // stale: the next read goes to the bucket
        throw new RegistryConflictError(key);
      }
      throw e;
    }
  }

  /** Deletes a key last written at `revision`; RegistryConflictError when another writer changed it first. */
  async remove(key: string, revision: number): Promise<void> {
    try {
      await this.kv.delete(key, { previousSeq: revision });
    } catch (e) {
      if (e instanceof JetStreamApiError && e.code === JsCodes.StreamWrongLastSequence) {
        this.cache.delete(key);
        throw new RegistryConflictError(key);
      }
      throw e;
    }
    this.cache.set(key, { value: null, revision: revision + 1 });
  }

  /** Every live value under a key prefix (`d`, `wt.<domain>`, …), from the watched cache. */
  list<T>(prefix: string): Promise<T[]> {
    const out: T[] = [];
    const under = `${prefix}.`;
    // A damaged record (quarantined) is left out of lists; reads of its key answer the fault.
    for (const [k, e] of this.cache) if (k.startsWith(under) && e.value !== null && !e.damaged) out.push(e.value as T);
    return Promise.resolve(out);
  }

  domain(name: string, opts: { fresh?: boolean } = {}): Promise<Cached<DomainRecord>> {
    return this.get<DomainRecord>(Registry.domainKey(name), opts);
  }

  type(kind: TypeKind, domain: string, name: string, version: string, opts: { fresh?: boolean } = {}): Promise<Cached<TypeRecord>> {
    return this.get<TypeRecord>(Registry.typeKey(kind, domain, name, version), opts);
  }
}
