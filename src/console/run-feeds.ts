import type { Logger } from 'pino';
import type { HistoryEvent } from '../../machines/swf/history-event.js';
import type { ExecutionState } from '../../machines/swf/execution-state.js';
import { decodeStored } from '../history/quarantine.js';
import type { Nats } from '../nats/infrastructure.js';
import type { RunKey } from '../swf/kind/execution.js';
import type { PartitionOwner } from '../swf/kind/partition-owner.js';
import type { Router } from '../engine/router.js';
import type { HistoryStore } from '../history/history-store.js';
import { FeedLoop } from './feed-loop.js';
import { actorViews, runInfo, type ActorSource, type ActorView, type MachineGraphs, type Replayer, type RunInfo } from './run-snapshot.js';

/** What a feed pushes: the events appended since the last message, the run's summary, its actors. */
export interface RunUpdate {
  /** True on the first message of a feed: `events` is the whole history. */
  reset: boolean;
  /** Number of events the page had before this message (the first event here has id from + 1). */
  from: number;
  events: HistoryEvent[];
  info: RunInfo;
  actors: ActorView[];
  source: ActorSource;
  /** The server's clock (epoch ms), to count down deadlines without trusting the browser's clock. */
  now: number;
}

/** What the feeds need from the node. */
export interface FeedHost {
  owner: PartitionOwner;
  router: Router;
  nats: Nats;
  store: HistoryStore;
  clock: { now(): number };
  log: Logger;
}

export type FeedSink = {
  update(u: RunUpdate): void;
  error(message: string): void;
  /** False while the client is not reading (the update is retried on a later tick). */
  ready(): boolean;
};

interface Feed {
  key: RunKey;
  id: string;
  subject: string;
  sink: FeedSink;
  /** Events already sent. */
  sent: number;
  fingerprint: string;
  source: ActorSource | undefined;
  /** Closed and fully sent: history never changes again. */
  final: boolean;
  /** The stream went away. */
  detached: boolean;
  /** A refresh is running (the first one and a tick may overlap). */
  busy: boolean;
}

const idOf = (k: { domain: string; workflowId: string; runId: string }) => `${k.domain}\u0000${k.workflowId}\u0000${k.runId}`;

/**
 * Server-side change detection for the console's SSE streams: one loop for all open streams, every
 * `intervalMs` (300 ms). A run live on this node is read straight from its actors (no I/O: the owner
 * hands out the live Execution, its history array and actor snapshots). A run that is not live here
 * (asleep, closed, or owned by another node) costs one JetStream direct get of its history subject's
 * last message per tick; only when that shows new events is the history read and replayed into
 * actors on a clock that never fires. Watching never wakes a sleeping run. A stream gets a message
 * only when something it shows changed (new events, an actor's state, an armed deadline).
 */
export class RunFeeds {
  private readonly loop: FeedLoop<Feed>;

  constructor(private readonly host: FeedHost, private readonly graphs: MachineGraphs, private readonly replayer: Replayer,
    intervalMs = 300) {
    this.loop = new FeedLoop<Feed>(async (feeds) => {
      const live = this.liveIds();
      await Promise.all(feeds.map((f) => this.refresh(f, live).catch((err: unknown) => this.failed(f, err))));
    }, intervalMs);
  }

  get size(): number {
    return this.loop.size;
  }

  /** Starts a feed; the first update (the whole history) follows at once. Returns the unsubscribe. */
  watch(key: RunKey, sink: FeedSink): () => void {
    const feed: Feed = { key, id: idOf(key), subject: this.host.owner.subject(key), sink, sent: 0, fingerprint: '', source: undefined, final: false, detached: false, busy: false };
    void this.refresh(feed, this.liveIds()).catch((err: unknown) => this.failed(feed, err));
    return this.loop.add(feed);
  }

  /** One update for a one-shot read (GET …/<runId>): the same payload as a feed's first message. */
  async snapshot(key: RunKey): Promise<RunUpdate | undefined> {
    let out: RunUpdate | undefined;
    let missing = false;
    const feed: Feed = {
      key, id: idOf(key), subject: this.host.owner.subject(key), sent: 0, fingerprint: '', source: undefined, final: false, detached: false, busy: false,
      sink: { update: (u) => { out = u; }, error: () => { missing = true; }, ready: () => true },
    };
    await this.refresh(feed, this.liveIds());
    return missing ? undefined : out;
  }

  stop(): void {
    this.loop.stop();
  }

  private liveIds(): Set<string> {
    return new Set(this.host.owner.liveRuns().map(idOf));
  }

  private failed(feed: Feed, err: unknown): void {
    this.host.log.debug({ err, ...feed.key }, 'console feed refresh failed; retrying on the next tick');
  }

  /** Events and actor views of the run, or undefined when nothing can have changed since the last message. */
  private async read(feed: Feed, live: ReadonlySet<string>): Promise<{ events: HistoryEvent[]; state: ExecutionState; actors: ActorView[]; source: ActorSource } | 'missing' | undefined> {
    const { owner, router } = this.host;
    if (live.has(feed.id) && router.owns(feed.key.partition)) {
      const run = await owner.open(feed.key); // a live run: handed out without I/O
      if (run && !run.isDead) {
        const events = await run.log.all(); // the console shows a whole history (a development tool)
        return { events, state: run.state, actors: actorViews(run.actors, events, this.graphs), source: 'live' };
      }
    }
    const last = await this.lastEventId(feed.subject);
    if (last === 0) return 'missing';
    // Not live and no new events: a replay would show what was already sent (deadlines are history).
    if (last === feed.sent && feed.source !== undefined && feed.source !== 'live') return undefined;
    const { events } = await this.host.store.read(feed.subject);
    if (events.length === 0) return 'missing';
    const actors = this.replayer.replay(events);
    const state = actors.workflow.getSnapshot().context.execution;
    const source: ActorSource = state.closeStatus ? 'closed' : router.owns(feed.key.partition) ? 'asleep' : 'remote';
    return { events, state, actors: actorViews(actors, events, this.graphs), source };
  }

  private async refresh(feed: Feed, live: ReadonlySet<string>): Promise<void> {
    if (feed.final || feed.detached || feed.busy || !feed.sink.ready()) return;
    feed.busy = true;
    try {
      await this.push(feed, live);
    } finally {
      feed.busy = false;
    }
  }

  private async push(feed: Feed, live: ReadonlySet<string>): Promise<void> {
    const r = await this.read(feed, live);
    if (r === undefined || feed.detached) return;
    if (r === 'missing') {
      if (feed.sent === 0) {
        feed.final = true;
        feed.sink.error(`Unknown execution: workflowId=${feed.key.workflowId}, runId=${feed.key.runId} (or its history is past the domain's retention)`);
      }
      return;
    }
    const info = runInfo(feed.key, r.state);
    const fingerprint = JSON.stringify([r.source, info, r.actors]);
    const from = r.events.length < feed.sent ? 0 : feed.sent;
    if (r.events.length === from && fingerprint === feed.fingerprint) return;
    feed.sink.update({
      reset: from === 0, from, events: r.events.slice(from), info, actors: r.actors, source: r.source, now: this.host.clock.now(),
    });
    feed.sent = r.events.length;
    feed.fingerprint = fingerprint;
    feed.source = r.source;
    if (r.state.closeStatus) feed.final = true;
  }

  /** The id of the last event persisted for the run (0: no history): one direct get, no consumer. */
  private async lastEventId(subject: string): Promise<number> {
    const { jsm, subjects } = this.host.nats;
    const m = await jsm.direct.getMessage(subjects.streams.history, { last_by_subj: subject });
    if (!m) return 0;
    const events = decodeStored<{ events: HistoryEvent[] }>('history', m.data, { stream: subjects.streams.history, subject: m.subject, seq: m.seq }).events;
    return events[events.length - 1]?.id ?? 0;
  }
}
