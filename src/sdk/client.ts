import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Fault } from '../protocol/faults.js';
import { backoffMs } from '../protocol/retry.js';
import { loneSurrogatePath, unicodeProblem } from '../protocol/validate.js';
import { decode, encode } from '../protocol/codec.js';
import { connectionAuth, type NatsAuth } from '../nats/connect-options.js';
import { installRequestFastPath } from '../nats/request-fast-path.js';
import { fromWire, type WireReply } from '../protocol/wire.js';
import { isNoResponders } from '../nats/error-causes.js';
import { PartitionHints } from './partition-hints.js';
import { ACTION_NAMES as SWF_ACTIONS } from './types/swf.js';
import { ACTION_NAMES as SFN_ACTIONS } from './types/sfn.js';
import { SFN_NAMES_OF_SWF, serviceMethods, type SfnMethods, type SwfMethods } from './typed-client.js';

export interface ClientOptions {
  /** NATS servers, e.g. `nats://127.0.0.1:4222`. */
  servers?: string;
  /** Subject prefix of the engine (default `af`). */
  prefix?: string;
  /**
   * NATS user/password (the `worker` user of nats.conf) and TLS files (`caFile` for a private CA,
   * `certFile`/`keyFile` for mutual TLS); use `tls://` server URLs with TLS. Ignored with `connection`.
   */
  auth?: NatsAuth;
  /** An existing connection to share instead of opening one. */
  connection?: NatsConnection;
  /**
   * Send each execution's requests straight to the engine node that owns it (default true): in a
   * cluster of N nodes, (N−1)/N of them would otherwise take one more hop between nodes. Falls back to
   * any node when the owner cannot be reached, so turning it off only changes the route.
   */
  partitionAware?: boolean;
}

/** A history event as the API returns it (AWS shape). */
export interface WireEvent {
  eventId: number;
  eventType: string;
  eventTimestamp: number;
  [attributes: string]: unknown;
}

const CALL_TIMEOUT_MS = 10_000;
/** StartSyncExecution answers when its express execution ends: at most AWS's 5 minutes, plus a grace. */
const SYNC_EXECUTION_TIMEOUT_MS = 5 * 60_000 + 10_000;
const POLL_TIMEOUT_MS = 70_000;
/** How much longer than the poll it asked for a client waits for the answer. */
const POLL_GRACE_MS = 5_000;

/**
 * Workers and deciders outlive any NATS outage: nats.js gives up after 10 attempts by default (about
 * 20 s), and a closed connection stops a worker for good. Reconnect for ever (the loop is nats.js's),
 * backing off from 250 ms to 5 s with up to 50 % jitter so a fleet of workers does not reconnect in
 * step. One backoff per connection.
 */
const RECONNECT_BACKOFF = { firstMs: 250, capMs: 5000, jitter: 0.5 };
function reconnectOptions() {
  let attempt = 0;
  let last = 0;
  return {
    maxReconnectAttempts: -1,
    reconnectDelayHandler: () => {
      // A connection that stayed up for a while starts its backoff again from the bottom.
      if (Date.now() - last > 30_000) attempt = 0;
      last = Date.now();
      return backoffMs(RECONNECT_BACKOFF, ++attempt);
    },
  };
}

/**
 * The ActorFlow client over NATS: every SWF and Step Functions action by its AWS name, with AWS-shaped
 * inputs and outputs (typed from the AWS service models on `client.swf` and `client.sfn`; untyped
 * through `call`). Faults surface as `Fault` errors carrying the AWS fault name.
 */
export class ActorFlowClient {
  /** The SWF actions, typed: `client.swf.startWorkflowExecution({ domain, workflowId, workflowType })`. */
  readonly swf: SwfMethods;
  /** The Step Functions actions, typed: `client.sfn.startExecution({ stateMachineArn, input })`. */
  readonly sfn: SfnMethods;

  private readonly hints: PartitionHints | undefined;

  private constructor(readonly nc: NatsConnection, private readonly prefix: string, private readonly owned: boolean, partitionAware: boolean) {
    this.hints = partitionAware ? new PartitionHints(nc, prefix) : undefined;
    const call = (action: string, input: object, opts: { timeoutMs?: number }) => this.call(action, input, opts);
    this.swf = serviceMethods<SwfMethods>(SWF_ACTIONS, call);
    this.sfn = serviceMethods<SfnMethods>(SFN_ACTIONS.filter((a) => !(SFN_NAMES_OF_SWF as readonly string[]).includes(a)), call);
  }

  static async connect(opts: ClientOptions = {}): Promise<ActorFlowClient> {
    const servers = opts.servers ?? 'nats://127.0.0.1:4222';
    installRequestFastPath();
    const nc = opts.connection ?? await connect({ servers, name: 'actorflow-client', noAsyncTraces: true, ...reconnectOptions(), ...connectionAuth(servers, opts.auth) });
    return new ActorFlowClient(nc, opts.prefix ?? 'af', !opts.connection, opts.partitionAware ?? true);
  }

  /**
   * Calls one action; polls get a long timeout: the poll time asked for (`afPollTimeoutMs`) plus a
   * grace, so a poll held by an engine that died is given up soon after the engine would have answered.
   * `opts.timeoutMs` overrides the wait for the answer (a caller that retries may want it shorter).
   */
  async call<T = Record<string, any>>(action: string, input: object = {}, opts: { timeoutMs?: number } = {}): Promise<T> {
    const asked = (input as { afPollTimeoutMs?: unknown }).afPollTimeoutMs;
    const longPoll = action.startsWith('PollFor') || action === 'GetActivityTask';
    const timeout = opts.timeoutMs ?? (action === 'StartSyncExecution' ? SYNC_EXECUTION_TIMEOUT_MS : !longPoll ? CALL_TIMEOUT_MS
      : typeof asked === 'number' && asked > 0 ? Math.min(asked + POLL_GRACE_MS, POLL_TIMEOUT_MS) : POLL_TIMEOUT_MS);
    // msgpack would write a lone surrogate as U+FFFD: refuse it here as the engine refuses it over HTTP.
    const bad = loneSurrogatePath(input);
    if (bad !== undefined) throw new Fault('ValidationException', `1 validation error detected: Value at '${bad}' failed to satisfy constraint: ${unicodeProblem('\ud800')}`);
    const data = encode(input);
    const generic = `${this.prefix}.api.${action}`;
    const direct = this.hints?.subject(action, input as Record<string, unknown>);
    // The owner's own subject; nobody there (a hand-over, an older engine): any node serves it.
    const m = direct === undefined ? await this.nc.request(generic, data, { timeout })
      : await this.nc.request(direct, data, { timeout }).catch((e: unknown) => {
        if (!isNoResponders(e)) throw e;
        return this.nc.request(generic, data, { timeout });
      });
    const reply = decode<WireReply<T>>(m.data);
    return fromWire(reply);
  }

  /** Every event of a run, following nextPageToken. */
  async history(domain: string, execution: { workflowId: string; runId: string }): Promise<WireEvent[]> {
    const events: WireEvent[] = [];
    let nextPageToken: string | undefined;
    do {
      const page = await this.call<{ events: WireEvent[]; nextPageToken?: string }>('GetWorkflowExecutionHistory', { domain, execution, nextPageToken });
      for (const e of page.events) events.push(e);
      nextPageToken = page.nextPageToken;
    } while (nextPageToken);
    return events;
  }

  /** Registers a domain unless it exists. */
  async ensureDomain(name: string, retentionDays = '1'): Promise<void> {
    await this.call('RegisterDomain', { name, workflowExecutionRetentionPeriodInDays: retentionDays }).catch(ignore('DomainAlreadyExistsFault'));
  }

  async close(): Promise<void> {
    if (this.owned) await this.nc.drain();
  }
}

/** A catch handler that swallows one fault name and rethrows the rest. */
export function ignore(name: string) {
  return (e: unknown) => {
    if (e instanceof Fault && e.name === name) return undefined;
    throw e;
  };
}

/** The attributes member of a wire event (`<camelType>EventAttributes`). */
export function attributesOf(e: WireEvent): Record<string, any> {
  return (e[`${e.eventType[0]!.toLowerCase()}${e.eventType.slice(1)}EventAttributes`] ?? {}) as Record<string, any>;
}
