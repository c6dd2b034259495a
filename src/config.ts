import { ENGINE_INBOX_PREFIX, natsAuthFromEnv, type NatsAuth } from './nats/connect-options.js';
import { checkReplyPrefixes, DEFAULT_REPLY_PREFIXES } from './nats/reply-subjects.js';
import { DEFAULT_CONSUMER_IDLE_MS } from './matching/task-queues.js';
import { DEFAULT_API_DRAIN_MS, DEFAULT_REQUEST_LIMITS, type RequestLimits } from './transport/request-limit.js';
import { DEFAULT_NO_OWNER_RETRY_MS, DEFAULT_OWNER_TIMEOUT_MS } from './engine/router.js';
import { MAX_POLL_MS } from './protocol/poll-hold.js';
import { ENGINE_SUBJECT_SPACES, isLiteralSubject } from './nats/subjects.js';
import { loadHttpTaskConfig, NO_HTTP_TASK_CONFIG, parseHttpTaskConfig, type HttpTaskConfig } from './sfn/integrations/http-config.js';
import { resolveLambdaTarget, type LambdaTarget, type LambdaTargetOptions } from './sfn/integrations/lambda-config.js';

/**
 * How the engine's waits relate, stated once and checked by resolveOptions:
 * - a poll is held at most 60 s (SWF's hold; AWS SDK clients and ours give up on a poll after 70 s);
 * - an owner call (a request run on its partition's owner) may take the owner timeout, which must
 *   exceed the poll hold by OWNER_TIMEOUT_MARGIN_MS: no request is given up on sooner than the
 *   longest a request may legitimately wait, plus time for the owner's own work;
 * - in a cluster, a request waits for an ownerless partition longer than a lease lives: a dead
 *   node's partitions are ownerless for about one lease TTL before another node takes them.
 */
export const OWNER_TIMEOUT_MARGIN_MS = 10_000;
/** Executions a node rebuilds at once at start-up or takeover, SWF and Step Functions alike, by default. */
export const DEFAULT_RECOVERY_CONCURRENCY = 64;

/** Node options: all optional, resolved once at start-up into a read-only form. */
export interface NodeOptions {
  natsUrl?: string;
  /** NATS user/password and TLS files; default NATS_USER, NATS_PASSWORD, NATS_CA, NATS_CERT, NATS_KEY. */
  natsAuth?: NatsAuth;
  prefix?: string;
  partitions?: number;
  region?: string;
  account?: string;
  nodeName?: string;
  logLevel?: string;
  /** Idle runs leave memory after this many ms (AF_SLEEP_AFTER_MS, default 30,000). */
  sleepAfterMs?: number;
  /** Share partitions with other nodes through KV leases (AF_CLUSTER=1); off: this node owns every partition. */
  cluster?: boolean;
  /** Lease TTL in ms (AF_LEASE_TTL_MS, default 6,000): a dead node's partitions move after about this long. */
  leaseTtlMs?: number;
  /** Lease renewal interval in ms (AF_LEASE_RENEW_MS, default TTL/4). */
  leaseRenewMs?: number;
  /** Replicas of streams and buckets (AF_REPLICAS); default 3 on a NATS cluster of 3 or more servers, else 1. */
  replicas?: number;
  /**
   * Inbox prefixes the NATS API answers on (AF_API_REPLY_PREFIXES, comma-separated; default `_INBOX`):
   * add a client's own `inboxPrefix` here (and to its user's subscribe permissions in nats.conf).
   */
  apiReplyPrefixes?: readonly string[];
  /** NATS API requests one client connection has running (AF_API_MAX_INFLIGHT_PER_CONNECTION, default 32); more queue. */
  apiMaxInflightPerConnection?: number;
  /** NATS API requests of one connection queued (AF_API_MAX_QUEUED_PER_CONNECTION, default 1024); more get ThrottlingException. */
  apiMaxQueuedPerConnection?: number;
  /** NATS API requests in flight on the node (AF_API_MAX_INFLIGHT, default 8192). */
  apiMaxInflight?: number;
  /** A task list's JetStream consumer is removed this long after its last poll (AF_TASK_CONSUMER_IDLE_MS, default 300,000). */
  taskConsumerIdleMs?: number;
  /** Longest wait of an owner call on another node (AF_OWNER_TIMEOUT_MS, default 70,000; at least the poll hold + 10 s). */
  ownerTimeoutMs?: number;
  /** How long a poll is held when no task comes (AF_POLL_HOLD_MS, 1,000–60,000, default 60,000 as in SWF). */
  pollHoldMs?: number;
  /** How long a stopping node waits for API requests in flight (AF_API_DRAIN_MS, default 5,000). */
  apiDrainMs?: number;
  /** Executions rebuilt at once at start-up and takeover, both kinds (AF_RECOVERY_CONCURRENCY, 1–1024, default 64). */
  recoveryConcurrency?: number;
  /** How long a request waits for a partition with no owner (AF_NO_OWNER_RETRY_MS, default 15,000 or twice the lease TTL if longer; in a cluster above the lease TTL). */
  noOwnerRetryMs?: number;
  /**
   * Days a closed Step Functions execution stays readable (AF_SFN_RETENTION_DAYS, default 90, as AWS
   * keeps closed standard executions); then its history, visibility entry and record are purged.
   */
  sfnRetentionDays?: number;
  /**
   * Where `arn:actorflow:states:::nats:publish` Tasks publish (AF_SFN_NATS_PUBLISH_PREFIX, default
   * `<prefix>.sfn.out`): a Task's Subject `orders.new` goes to `af.sfn.out.orders.new`. Every
   * definition publishes below this prefix only, so none can reach the engine's own subjects
   * (history, task lists, owner calls, the API); workers subscribe to `af.sfn.out.>` (nats.conf
   * lets the worker user). A literal subject outside the engine's spaces, `$…` and inboxes.
   */
  sfnNatsPublishPrefix?: string;
  /**
   * The HTTP task's allowed hosts and connections, as the JSON of the file AF_SFN_HTTP_CONFIG names
   * (see src/sfn/integrations/http-config.ts). None: the HTTP task may call no host.
   */
  sfnHttp?: unknown;
  /** The Lambda Invoke endpoint of lambda:invoke tasks (AF_SFN_LAMBDA_ENDPOINT, region, credentials). */
  sfnLambda?: LambdaTargetOptions;
}

export interface NodeConfig {
  readonly natsUrl: string;
  readonly natsAuth: Readonly<NatsAuth>;
  readonly prefix: string;
  readonly partitions: number;
  readonly region: string;
  readonly account: string;
  readonly nodeName: string;
  readonly logLevel: string;
  readonly sleepAfterMs: number;
  readonly cluster: boolean;
  readonly leaseTtlMs: number;
  readonly leaseRenewMs: number;
  readonly replicas: number | undefined;
  readonly apiReplyPrefixes: readonly string[];
  readonly apiLimits: Readonly<RequestLimits>;
  readonly taskConsumerIdleMs: number;
  readonly ownerTimeoutMs: number;
  readonly pollHoldMs: number;
  readonly apiDrainMs: number;
  readonly recoveryConcurrency: number;
  readonly noOwnerRetryMs: number;
  readonly sfnRetentionMs: number;
  readonly sfnHttp: HttpTaskConfig;
  readonly sfnLambda: LambdaTarget | undefined;
  readonly sfnNatsPublishPrefix: string;
}

/** AF_SFN_NATS_PUBLISH_PREFIX: a literal subject clear of the engine's own subjects. */
function checkPublishPrefix(p: string, prefix: string): string {
  const [first, second] = p.split('.');
  const engines = first === prefix && (second === undefined || ENGINE_SUBJECT_SPACES.includes(second));
  if (!isLiteralSubject(p) || engines || first === '_INBOX' || first === ENGINE_INBOX_PREFIX) {
    throw new Error(`AF_SFN_NATS_PUBLISH_PREFIX must be a literal subject outside the engine's own (${prefix}.{${ENGINE_SUBJECT_SPACES.join(',')}}.>, inboxes), got ${p}`);
  }
  return p;
}

/** An integer option: the NodeOptions value, else its env var, else the default; checked against [min, max]. */
function intOption(name: string, given: number | undefined, env: NodeJS.ProcessEnv, dflt: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = given ?? (env[name] === undefined || env[name] === '' ? dflt : Number(env[name]));
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new Error(`${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`}, got ${env[name] !== undefined && given === undefined ? env[name] : v}`);
  }
  return v;
}

/** The engine's waits (see the couplings at the top of this file). */
function resolveWaits(o: NodeOptions, env: NodeJS.ProcessEnv, cluster: boolean, leaseTtlMs: number) {
  const pollHoldMs = intOption('AF_POLL_HOLD_MS', o.pollHoldMs, env, MAX_POLL_MS, 1000, MAX_POLL_MS);
  const ownerTimeoutMs = intOption('AF_OWNER_TIMEOUT_MS', o.ownerTimeoutMs, env, DEFAULT_OWNER_TIMEOUT_MS, 1000);
  if (ownerTimeoutMs < pollHoldMs + OWNER_TIMEOUT_MARGIN_MS) {
    throw new Error(`AF_OWNER_TIMEOUT_MS (${ownerTimeoutMs}) must be at least the poll hold AF_POLL_HOLD_MS (${pollHoldMs}) + ${OWNER_TIMEOUT_MARGIN_MS} ms`);
  }
  // By default twice a lease TTL when that is longer than 15 s, so a longer TTL needs no second setting.
  const noOwnerRetryMs = intOption('AF_NO_OWNER_RETRY_MS', o.noOwnerRetryMs, env, Math.max(DEFAULT_NO_OWNER_RETRY_MS, 2 * leaseTtlMs), 0);
  if (cluster && noOwnerRetryMs <= leaseTtlMs) {
    throw new Error(`AF_NO_OWNER_RETRY_MS (${noOwnerRetryMs}) must exceed the lease TTL AF_LEASE_TTL_MS (${leaseTtlMs}) in a cluster: a dead node's partitions have no owner for about one TTL`);
  }
  return {
    pollHoldMs, ownerTimeoutMs, noOwnerRetryMs,
    apiDrainMs: intOption('AF_API_DRAIN_MS', o.apiDrainMs, env, DEFAULT_API_DRAIN_MS, 0),
    recoveryConcurrency: intOption('AF_RECOVERY_CONCURRENCY', o.recoveryConcurrency, env, DEFAULT_RECOVERY_CONCURRENCY, 1, 1024),
  };
}

const DAY_MS = 86_400_000;
/** The longest Step Functions retention accepted (about 100 years). */
const MAX_RETENTION_DAYS = 36_500;

export function resolveOptions(o: NodeOptions = {}, env: NodeJS.ProcessEnv = process.env): NodeConfig {
  const partitions = o.partitions ?? Number(env.AF_PARTITIONS ?? 16);
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 4096) {
    throw new Error(`AF_PARTITIONS must be an integer from 1 to 4096, got ${partitions}`);
  }
  const prefix = o.prefix ?? env.AF_PREFIX ?? 'af';
  if (!/^[a-z][a-z0-9_-]{0,31}$/.test(prefix)) throw new Error(`AF_PREFIX must match [a-z][a-z0-9_-]{0,31}, got ${prefix}`);
  const sleepAfterMs = o.sleepAfterMs ?? Number(env.AF_SLEEP_AFTER_MS ?? 30_000);
  if (!Number.isFinite(sleepAfterMs) || sleepAfterMs < 0) throw new Error(`AF_SLEEP_AFTER_MS must be a number of ms ≥ 0, got ${sleepAfterMs}`);
  const cluster = o.cluster ?? /^(1|true|yes|on)$/i.test(env.AF_CLUSTER ?? '');
  const leaseTtlMs = o.leaseTtlMs ?? Number(env.AF_LEASE_TTL_MS ?? 6000);
  if (!Number.isInteger(leaseTtlMs) || leaseTtlMs < 1000) throw new Error(`AF_LEASE_TTL_MS must be an integer ≥ 1000, got ${leaseTtlMs}`);
  const leaseRenewMs = o.leaseRenewMs ?? Number(env.AF_LEASE_RENEW_MS ?? Math.round(leaseTtlMs / 4));
  if (!Number.isInteger(leaseRenewMs) || leaseRenewMs < 100 || leaseRenewMs > leaseTtlMs / 2) {
    throw new Error(`AF_LEASE_RENEW_MS must be an integer from 100 to half the lease TTL (${leaseTtlMs / 2}), got ${leaseRenewMs}`);
  }
  const replicas = o.replicas ?? (env.AF_REPLICAS ? Number(env.AF_REPLICAS) : undefined);
  if (replicas !== undefined && ![1, 3, 5].includes(replicas)) throw new Error(`AF_REPLICAS must be 1, 3 or 5, got ${replicas}`);
  const apiReplyPrefixes = checkReplyPrefixes(o.apiReplyPrefixes
    ?? (env.AF_API_REPLY_PREFIXES ? env.AF_API_REPLY_PREFIXES.split(',').map((p) => p.trim()).filter(Boolean) : DEFAULT_REPLY_PREFIXES), [prefix, ENGINE_INBOX_PREFIX]);
  const apiLimits = Object.freeze({
    perConnection: o.apiMaxInflightPerConnection ?? Number(env.AF_API_MAX_INFLIGHT_PER_CONNECTION ?? DEFAULT_REQUEST_LIMITS.perConnection),
    queuedPerConnection: o.apiMaxQueuedPerConnection ?? Number(env.AF_API_MAX_QUEUED_PER_CONNECTION ?? DEFAULT_REQUEST_LIMITS.queuedPerConnection),
    pollsPerConnection: DEFAULT_REQUEST_LIMITS.pollsPerConnection,
    total: o.apiMaxInflight ?? Number(env.AF_API_MAX_INFLIGHT ?? DEFAULT_REQUEST_LIMITS.total),
  });
  for (const [name, v] of [['AF_API_MAX_INFLIGHT_PER_CONNECTION', apiLimits.perConnection], ['AF_API_MAX_QUEUED_PER_CONNECTION', apiLimits.queuedPerConnection + 1],
    ['AF_API_MAX_INFLIGHT', apiLimits.total]] as const) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be an integer ≥ 1, got ${v}`);
  }
  const taskConsumerIdleMs = o.taskConsumerIdleMs ?? Number(env.AF_TASK_CONSUMER_IDLE_MS ?? DEFAULT_CONSUMER_IDLE_MS);
  if (!Number.isInteger(taskConsumerIdleMs) || taskConsumerIdleMs < 1000) throw new Error(`AF_TASK_CONSUMER_IDLE_MS must be an integer ≥ 1000, got ${taskConsumerIdleMs}`);
  const waits = resolveWaits(o, env, cluster, leaseTtlMs);
  const sfnRetentionDays = o.sfnRetentionDays ?? Number(env.AF_SFN_RETENTION_DAYS ?? 90);
  // Fractions of a day are allowed (short-lived test and development setups).
  if (!Number.isFinite(sfnRetentionDays) || sfnRetentionDays <= 0 || sfnRetentionDays > MAX_RETENTION_DAYS) {
    throw new Error(`AF_SFN_RETENTION_DAYS must be a number of days above 0 and at most ${MAX_RETENTION_DAYS}, got ${sfnRetentionDays}`);
  }
  const sfnNatsPublishPrefix = checkPublishPrefix(o.sfnNatsPublishPrefix ?? (env.AF_SFN_NATS_PUBLISH_PREFIX || `${prefix}.sfn.out`), prefix);
  const region = o.region ?? env.AF_REGION ?? 'us-east-1';
  const sfnHttp = o.sfnHttp !== undefined ? parseHttpTaskConfig(o.sfnHttp, 'sfnHttp')
    : env.AF_SFN_HTTP_CONFIG ? loadHttpTaskConfig(env.AF_SFN_HTTP_CONFIG) : NO_HTTP_TASK_CONFIG;
  return Object.freeze({
    ...waits, sfnNatsPublishPrefix,
    sfnHttp,
    sfnLambda: resolveLambdaTarget(o.sfnLambda, env, region),
    cluster, apiReplyPrefixes, apiLimits, taskConsumerIdleMs, leaseTtlMs, leaseRenewMs, replicas,
    sfnRetentionMs: Math.round(sfnRetentionDays * DAY_MS),
    sleepAfterMs,
    natsUrl: o.natsUrl ?? env.NATS_URL ?? 'nats://127.0.0.1:4222',
    natsAuth: Object.freeze({ ...(o.natsAuth ?? natsAuthFromEnv(env)) }),
    prefix,
    partitions,
    region,
    account: o.account ?? env.AF_ACCOUNT ?? '000000000000',
    nodeName: o.nodeName ?? env.AF_NODE_NAME ?? `node-${process.pid}`,
    logLevel: o.logLevel ?? env.AF_LOG_LEVEL ?? 'info',
  });
}
