import { SortedList } from './sorted-list.js';
import type { VisibilitySink } from './visibility-feed.js';

/**
 * How one execution kind lays its visibility records out: which group lists a record (SWF: its
 * domain; Step Functions: its state machine), its id in the group, which of two versions wins, and
 * the sorted lists a group keeps (a record sits in the lists `listsOf` names).
 */
export interface VisibilityLayout<R> {
  group(r: R): string;
  id(r: R): string;
  /** Of two records with one id, the higher version wins. */
  version(r: R): number;
  /** The order of each list a group may keep, by list name. */
  orders: Readonly<Record<string, (a: R, b: R) => number>>;
  listsOf(r: R): readonly string[];
  /** The list of closed records ordered by close time, and a record's close time: what `prune` walks. */
  closed: { list: string; at(r: R): number };
}

/** One group's records, by id and in its sorted lists (created as records arrive). */
class Group<R> {
  readonly records = new Map<string, R>();
  readonly lists = new Map<string, SortedList<R>>();

  constructor(private readonly layout: VisibilityLayout<R>) {}

  static bulk<R>(layout: VisibilityLayout<R>, recs: R[]): Group<R> {
    const g = new Group(layout);
    const byList = new Map<string, R[]>();
    for (const r of recs) {
      g.records.set(layout.id(r), r);
      for (const name of layout.listsOf(r)) {
        const l = byList.get(name);
        if (l) l.push(r);
        else byList.set(name, [r]);
      }
    }
    for (const [name, items] of byList) {
      const order = layout.orders[name]!;
      g.lists.set(name, SortedList.fromSorted(order, items.sort(order)));
    }
    return g;
  }

  add(r: R): void {
    this.records.set(this.layout.id(r), r);
    for (const name of this.layout.listsOf(r)) {
      let l = this.lists.get(name);
      if (!l) this.lists.set(name, l = new SortedList(this.layout.orders[name]!));
      l.insert(r);
    }
  }

  drop(r: R): void {
    this.records.delete(this.layout.id(r));
    for (const name of this.layout.listsOf(r)) this.lists.get(name)?.delete(r);
  }
}

/**
 * The in-memory records of one execution kind, grouped and kept sorted (no sort per query). While
 * the initial load runs, records are buffered (latest version per id) and indexed in bulk once it
 * ends; after it, each record is applied as it comes.
 */
export class VisibilityStore<R> {
  private readonly groups = new Map<string, Group<R>>();
  private buffer: Map<string, R> | null = null;

  constructor(readonly layout: VisibilityLayout<R>) {}

  private key(group: string, id: string): string {
    return `${group}\u0000${id}`;
  }

  /** Starts buffering: records applied from now on are indexed at `finishLoad`. */
  beginLoad(): void {
    this.buffer ??= new Map();
  }

  finishLoad(): void {
    const buffered = this.buffer;
    if (!buffered) return;
    this.buffer = null;
    const byGroup = new Map<string, R[]>();
    for (const r of buffered.values()) {
      const g = this.layout.group(r);
      const list = byGroup.get(g);
      if (list) list.push(r);
      else byGroup.set(g, [r]);
    }
    for (const [group, recs] of byGroup) {
      if (this.groups.has(group)) for (const r of recs) this.apply(r);
      else this.groups.set(group, Group.bulk(this.layout, recs));
    }
  }

  get size(): number {
    let n = 0;
    for (const g of this.groups.values()) n += g.records.size;
    return n + (this.buffer?.size ?? 0);
  }

  get(group: string, id: string): R | undefined {
    return this.buffer?.get(this.key(group, id)) ?? this.groups.get(group)?.records.get(id);
  }

  /** Adds or replaces a record; an older version than the one held is ignored. */
  apply(rec: R): void {
    const { layout } = this;
    const group = layout.group(rec);
    const id = layout.id(rec);
    if (this.buffer) {
      const k = this.key(group, id);
      const cur = this.buffer.get(k);
      if (!cur || layout.version(cur) < layout.version(rec)) this.buffer.set(k, rec);
      return;
    }
    let g = this.groups.get(group);
    if (!g) this.groups.set(group, g = new Group(layout));
    const cur = g.records.get(id);
    if (cur) {
      if (layout.version(cur) >= layout.version(rec)) return;
      g.drop(cur);
    }
    g.add(rec);
  }

  remove(group: string, id: string): void {
    this.buffer?.delete(this.key(group, id));
    const g = this.groups.get(group);
    const cur = g?.records.get(id);
    if (cur) g!.drop(cur);
  }

  /** Forgets the group's records that closed at or before `cutoff` (their retention ran out). */
  prune(group: string, cutoff: number): number {
    const g = this.groups.get(group);
    const list = g?.lists.get(this.layout.closed.list);
    let n = 0;
    for (let r = list?.first(); g && r !== undefined && this.layout.closed.at(r) <= cutoff; r = list!.first()) { g.drop(r); n++; }
    return n;
  }

  /** One sorted list of a group; undefined when the group holds no record of it yet. */
  list(group: string, name: string): SortedList<R> | undefined {
    return this.groups.get(group)?.lists.get(name);
  }
}

/**
 * What every kind's index shares: its store, the sink the feed hands records to (those on the
 * subjects `accepts` takes), and reads and writes of single records. Kinds add their queries.
 */
export abstract class KindVisibility<R> {
  protected readonly store: VisibilityStore<R>;
  readonly sink: VisibilitySink;

  constructor(layout: VisibilityLayout<R>, accepts: (subject: string) => boolean) {
    const store = this.store = new VisibilityStore(layout);
    this.sink = { accepts, beginLoad: () => store.beginLoad(), apply: (rec: R) => store.apply(rec), finishLoad: () => store.finishLoad() };
  }

  get size(): number {
    return this.store.size;
  }

  get(group: string, id: string): R | undefined {
    return this.store.get(group, id);
  }

  /** Adds or replaces a record; an older version than the one held is ignored. */
  apply(rec: R): void {
    this.store.apply(rec);
  }

  remove(group: string, id: string): void {
    this.store.remove(group, id);
  }
}
