import type { Logger } from 'pino';
import { resolveOptions, type NodeOptions, type NodeConfig } from './config.js';
import { createLogger } from './log.js';
import { TaskQueues } from './matching/task-queues.js';
import { openNats, type Nats } from './nats/infrastructure.js';
import { oldServerWarning, olderThanTrusted } from './nats/server-version.js';
import { subjects } from './nats/subjects.js';
import { Registry } from './registry/registry.js';
import { createSystemClock, type EngineClock } from './engine/clock.js';
import { createMachineSet } from './swf/kind/execution-actors.js';
import { PartitionOwner } from './swf/kind/partition-owner.js';
import { Router } from './engine/router.js';
import { Retention, retentionMs } from './engine/retention.js';
import type { ServiceContext } from './service/context.js';
import { OPERATIONS, swfOwnerOps } from './swf/operations.js';
import { CrossRunEffects } from './swf/cross-run-effects.js';
import { NatsApiServer } from './transport/nats-api.js';
import { ReplyGuard } from './nats/reply-subjects.js';
import { Quarantine } from './history/quarantine.js';
import { ENGINE_INBOX_PREFIX } from './nats/connect-options.js';
import { RequestLimiter } from './transport/request-limit.js';
import { mergeOperations, SFN_OPERATIONS } from './sfn/operations.js';
import { timeHeld } from './service/time-held.js';
import { mountConsole } from './console/console.js';
import { startHttpGateway, type HttpGateway } from './transport/http-gateway.js';
import { resolveHttpOptions, type HttpGatewayOptions } from './transport/http-options.js';
import { VisibilityIndex } from './swf/visibility-index.js';
import { startInspector, type InspectOptions, type NodeInspector } from './observability/inspector.js';
import { MeteredHistoryStore } from './observability/metered-history-store.js';
import { NodeMetrics, nodeMetricSources } from './observability/metrics.js';
import { SfnHost } from './sfn/kind/sfn-host.js';
import { ExpressHost } from './sfn/express/express-host.js';
import { nodeIntegrations } from './sfn/integrations/node-integrations.js';
import type { MockHook } from './sfn/integrations/integration.js';
import { recordOf, sameVisibility, swfVisibilityAddress } from './swf/visibility-records.js';
import { VisibilityPublisher } from './visibility/visibility-publisher.js';
import { VisibilityFeed } from './visibility/visibility-feed.js';
import { SfnVisibilityIndex } from './sfn/visibility/sfn-visibility-index.js';
import { SfnRecordEffects } from './sfn/kind/sfn-record-effects.js';
import { clusterPartitionCount } from './cluster/partition-count.js';
import { clusterTaskTokenKey } from './cluster/task-token-key.js';
import { TaskTokens } from './engine/task-token.js';
import { LeaseStore } from './cluster/lease-store.js';
import { LeaseManager } from './cluster/lease-manager.js';
import { assertNoClusterPeers } from './cluster/static-node-guard.js';
import { healthz, Readiness, readyz } from './observability/readiness.js';
import { RecoveryProgress } from './engine/recovery-progress.js';
import { loadMockConfig } from './sfn/mocks/mock-config.js';
import { createMockHook } from './sfn/mocks/mock-hook.js';
import type { SfnExecutionRecord } from './sfn/kind/execution-records.js';
import { NatsOutageLog } from './nats/unavailable.js';

/** A running engine node. */
export interface EngineNode {
  config: NodeConfig;
  nats: Nats;
  ctx: ServiceContext;
  owner: PartitionOwner;
  /** The Step Functions execution kind on this node. */
  sfn: SfnHost;
  router: Router;
  log: Logger;
  /** The AWS JSON 1.0 HTTP gateway, when the `http` option started it (`http.port` is the bound port). */
  http?: HttpGateway;
  /** This node's Prometheus metrics (served at GET /metrics on the HTTP gateway). */
  metrics: NodeMetrics;
  /** The XState inspector bridge, when the `inspect` option started it. */
  inspector?: NodeInspector;
  /** What GET /readyz answers. */
  readiness: Readiness;
  /** Partition leases (cluster mode, `cluster` option or AF_CLUSTER=1). */
  leases?: LeaseManager;
  /** Graceful stop: no new requests, in-flight ones finish, then the connection drains. */
  stop(): Promise<void>;
}

export interface StartOptions extends NodeOptions {
  clock?: EngineClock;
  logger?: Logger;
  /**
   * Partitions this node owns, fixed. Default: all of them (one node), or in cluster mode
   * (`cluster: true`, AF_CLUSTER=1) whatever share the KV leases give it.
   */
  ownPartitions?: readonly number[];
  /** Also serve the AWS JSON 1.0 HTTP gateway (port 0 = a free port). */
  http?: HttpGatewayOptions;
  /**
   * Development: start the @statelyai/inspect bridge (`true`: port AF_INSPECT_PORT or 8081) and
   * create every actor with its inspector. Off by default (then no actor gets an `inspect` option).
   */
  inspect?: boolean | InspectOptions;
  /** How often a long start-up recovery logs its progress (ms; default 5,000). */
  recoveryLogMs?: number;
  /** Answers Step Functions Tasks before they run (tests: Step Functions Local's mock config); see MockHook. */
  sfnMock?: MockHook;
}

export async function startNode(options: StartOptions = {}): Promise<EngineNode> {
  const resolved = resolveOptions(options);
  const log = options.logger ?? createLogger(resolved.logLevel);
  const httpConfig = options.http && resolveHttpOptions(options.http);
  // Read before anything starts: a mock configuration that cannot be used stops the node here.
  const sfnMocks = resolved.sfnMockConfig === undefined ? undefined : await loadMockConfig(resolved.sfnMockConfig);
  if (sfnMocks) log.info({ file: resolved.sfnMockConfig, stateMachines: sfnMocks.stateMachines.size, mockedResponses: sfnMocks.responses.size }, 'Step Functions mock configuration loaded');
  const s = subjects(resolved.prefix);
  const inspector = options.inspect ? await startInspector(options.inspect === true ? {} : options.inspect, log.child({ c: 'inspect' })) : undefined;
  const started = Date.now();
  const nats = await openNats(resolved.natsUrl, s, { name: `actorflow-${resolved.nodeName}`, auth: resolved.natsAuth, replicas: resolved.replicas });
  log.info({ ms: Date.now() - started, replicas: nats.replicas }, 'connected to NATS; streams and buckets ready');
  const serverVersion = nats.nc.info?.version;
  if (olderThanTrusted(serverVersion)) log.warn({ version: serverVersion }, oldServerWarning(serverVersion!));
  if (!resolved.cluster && !options.ownPartitions) {
    await assertNoClusterPeers(nats.nc, s, resolved.leaseTtlMs, nats.replicas, resolved.nodeName)
      .catch(async (e: unknown) => { await nats.nc.close(); inspector?.stop(); throw e; });
  }
  // In a cluster every node uses the partition count the first node stored.
  const config: NodeConfig = !resolved.cluster ? resolved
    : Object.freeze({ ...resolved, partitions: await clusterPartitionCount(nats.nc, s, resolved.partitions, nats.replicas, log.child({ c: 'cluster' })) });
  const clock = options.clock ?? createSystemClock();
  const tokens = new TaskTokens(await clusterTaskTokenKey(nats.nc, s, nats.replicas));
  const metrics = new NodeMetrics();
  // Stored messages that do not decode or fit their shape: logged, counted, left for `actorflow quarantine`.
  const quarantine = new Quarantine(log.child({ c: 'quarantine' }), (kind) => metrics.quarantined(kind));
  // Replicated history: read the last transition from the stream leader (see HistoryStore).
  const store = new MeteredHistoryStore(metrics, nats.js, nats.jsm, s.streams.history, nats.replicas > 1, quarantine, clock.skipping);
  const feedOutage = new NatsOutageLog(log, 'task list feeds keep trying');
  const queues = new TaskQueues(nats.nc, nats.js, nats.jsm, s, (err) => { if (!feedOutage.absorbs(err)) log.warn({ err }, 'task list feed failed'); },
    quarantine, config.taskConsumerIdleMs);
  const registry = new Registry(nats.registry, quarantine);
  await registry.start();
  // Visibility: every node indexes AF_VISIBILITY in memory, SWF runs and Step Functions executions
  // (loaded before recovery compares to it).
  const visibility = new VisibilityIndex();
  const sfnVisibility = new SfnVisibilityIndex(() => clock.now(), config.sfnRetentionMs);
  const visFeed = new VisibilityFeed(nats.js, nats.jsm, s, log.child({ c: 'visibility' }), [sfnVisibility.sink, visibility.sink], quarantine);
  const visPublisher = new VisibilityPublisher(nats.js, log.child({ c: 'visibility' }), nats.nc);
  await visFeed.start();
  log.info({ ms: Date.now() - started }, 'registry and visibility index loaded');
  // Retention's timers are housekeeping: a time-skipping clock never jumps to them.
  const retention = new Retention(nats.js, nats.jsm, s, clock.skipping?.background ?? clock, log.child({ c: 'retention' }), quarantine);
  // Requests for an execution go to its partition's owner: in-process here, over af.part.<p>.* elsewhere.
  const router = new Router(nats.nc, s, config.partitions, log.child({ c: 'router' }),
    new ReplyGuard([ENGINE_INBOX_PREFIX], (reason) => metrics.requestDropped('owner', reason), log.child({ c: 'router' }), 'owner call'),
    { ownerTimeoutMs: config.ownerTimeoutMs, noOwnerRetryMs: config.noOwnerRetryMs });
  // Partition leases, in cluster mode (set below): a lost history fence makes them check ownership.
  let leases: LeaseManager | undefined;
  const onConflict = (p: number) => { void leases?.checkOwnership(p); };
  const owner: PartitionOwner = new PartitionOwner(nats, store, queues, createMachineSet(clock, inspector?.inspect), log.child({ c: 'owner' }), {
    sleepAfterMs: config.sleepAfterMs,
    owns: (p) => router.owns(p),
    recoveryConcurrency: config.recoveryConcurrency,
    effects: new CrossRunEffects(router, log.child({ c: 'cross-run' })),
    onConflict,
    registry,
    tokens,
    quarantine,
    onClosed: async (run) => {
      const domain = await registry.domain(run.key.domain);
      await retention.schedule(run.key.partition, owner.subject(run.key), run.state.closedAt ?? clock.now(), retentionMs(domain.value?.retentionDays),
        s.visibility(run.key.domain, run.key.runId));
    },
    onCommit: (run, events) => metrics.committed((id) => run.log.peek(id), events),
    onVisibility: async (run) => {
      const rec = recordOf(run.key, run.state);
      const held = visibility.get(rec.domain, rec.execution.runId);
      if (held && sameVisibility(held, rec)) return;
      visibility.apply(rec);
      await visPublisher.publish(...swfVisibilityAddress(s, rec), rec);
    },
  });
  router.register(swfOwnerOps(owner));
  // Step Functions executions: the second execution kind on the same engine (partitions, router, history, task lists).
  const recordEffects = new SfnRecordEffects({ subjects: s, jsm: nats.jsm, index: sfnVisibility, publisher: visPublisher, retention, retentionMs: config.sfnRetentionMs, log: log.child({ c: 'sfn' }) });
  // Service integrations call this node's Step Functions actions as the NATS API would (ctx is set below, before any call).
  const integrations = nodeIntegrations({
    call: (action, input, signal) => sfnCall(action, input, signal), log: log.child({ c: 'sfn-integrations' }),
    nc: nats.nc, subjects: s, natsPublishPrefix: config.sfnNatsPublishPrefix, http: config.sfnHttp, lambda: config.sfnLambda,
  });
  // A hook given by the caller, else the mock configuration's (it reads each execution's test case from its record).
  const sfnMock: MockHook | undefined = options.sfnMock ?? (sfnMocks && createMockHook(sfnMocks, { get: (sm, name): Promise<SfnExecutionRecord | undefined> => sfn.records.get(sm, name) }));
  const sfn = new SfnHost({ nats, store, queues, router, registry, clock, tokens, log: log.child({ c: 'sfn' }), inspect: inspector?.inspect, quarantine,
    sleepAfterMs: config.sleepAfterMs, mapRunChildren: config.mapRunChildren, recoveryConcurrency: config.recoveryConcurrency, onConflict, onCommit: (events) => metrics.sfnCommitted(events), recordEffects,
    integrations, ...(sfnMock ? { mock: sfnMock } : {}) });
  metrics.watch(nodeMetricSources(owner, sfn, queues, router));
  router.register(sfn.ownerOps());
  // EXPRESS executions: in this node's memory, on the same compiled machines (no partitions, no history).
  const sfnExpress = new ExpressHost({ clock, store, js: nats.js, subjects: s, maxRunning: config.sfnExpressMaxRunning, log: log.child({ c: 'sfn-express' }), inspect: inspector?.inspect,
    integrations, ...(sfnMock ? { mock: sfnMock } : {}) });
  const ctx: ServiceContext = {
    registry, router, queues, store, visibility, sfnVisibility, sfnExecutions: sfn.records, sfnMapRuns: sfn.mapRunRecords, sfnExpress, subjects: s, clock, log,
    region: config.region, account: config.account, tokens, pollHoldMs: config.pollHoldMs, sfnMocks, sfnIntegrations: integrations,
  };
  // The HTTP port listens before recovery, so /healthz and /readyz (503 until rebuilt) answer during it.
  let http: HttpGateway | undefined;
  // On a time-skipping clock, time does not jump while a request is served (long polls aside).
  const swfOps = timeHeld(OPERATIONS, clock.skipping);
  const sfnOps = timeHeld(SFN_OPERATIONS, clock.skipping);
  const sfnCall = (action: string, input: unknown, signal?: AbortSignal): Promise<unknown> => {
    const op = Object.hasOwn(sfnOps, action) ? sfnOps[action] : undefined;
    if (!op) return Promise.reject(new Error(`no Step Functions action ${action}`));
    return op(ctx, input, signal);
  };
  // In a cluster, partitions come and go with KV leases; each is rebuilt on every host before it is served.
  const clustered = config.cluster && !options.ownPartitions;
  const lm = clustered ? new LeaseManager(await LeaseStore.open(nats.nc, s, config.leaseTtlMs, nats.replicas), [owner, retention, sfn], router,
    { node: config.nodeName, partitions: config.partitions, renewMs: config.leaseRenewMs, httpUrl: () => http?.url, metrics: metrics.registry }, log.child({ c: 'cluster' })) : undefined;
  const readiness = new Readiness(nats.nc, lm);
  if (httpConfig) {
    const services = { SimpleWorkflowService: { ops: swfOps, signingName: 'swf' }, AWSStepFunctions: { ops: sfnOps, signingName: 'states' } };
    http = await startHttpGateway(ctx, services, httpConfig, log.child({ c: 'http' }), { startClosed: true })
      .catch(async (e: unknown) => {
        queues.close(); registry.stop(); retention.stop(); visFeed.stop(); await owner.stop(); await sfn.stop();
        await nats.nc.close(); inspector?.stop(); throw e;
      });
    http.addGetRoute('/healthz', healthz);
    http.addGetRoute('/readyz', readyz(readiness));
  }
  let recovered = 0;
  if (lm) {
    await lm.start().catch(async (e: unknown) => { await http?.drain(0); throw e; });
    leases = lm;
  } else {
    const owned = new Set(options.ownPartitions ?? Array.from({ length: config.partitions }, (_, p) => p));
    await retention.load(owned);
    const t0 = Date.now();
    const progress = new RecoveryProgress(log.child({ c: 'recovery' }), owned.size, 2, options.recoveryLogMs);
    try {
      progress.on(owner.hostName);
      recovered = await owner.recover(owned, config.partitions, progress);
      progress.hostDone();
      if (recovered > 0) log.info({ recovered, ms: Date.now() - t0 }, 'open runs rebuilt from history');
      progress.on(sfn.hostName);
      const sfnRecovered = await sfn.recover(owned, config.partitions, progress);
      progress.hostDone();
      if (sfnRecovered > 0) log.info({ sfnRecovered }, 'running Step Functions executions rebuilt from history');
    } catch (e) {
      await http?.drain(0); // the port listened during recovery
      throw e;
    } finally {
      progress.stop();
    }
    for (const p of owned) router.serve(p);
  }
  // Over NATS both services share af.api.<Action>: their action names must not clash.
  const api = new NatsApiServer(nats.nc, ctx, mergeOperations(swfOps, sfnOps), log.child({ c: 'api' }),
    new ReplyGuard(config.apiReplyPrefixes, (reason) => metrics.requestDropped('api', reason), log.child({ c: 'api' })),
    new RequestLimiter(config.apiLimits));
  api.start();
  // Partition-aware clients reach an execution's owner directly: the API follows the partitions served.
  router.onOwnership((p, owned) => { if (owned) api.servePartition(p); else api.releasePartition(p); });
  // Node introspection for operators and benchmarks: memory and run counts.
  nats.nc.subscribe(`${s.prefix}.node.${config.nodeName}.stats`, {
    callback: (_err, m) => {
      (globalThis as { gc?: () => void }).gc?.();
      const mem = process.memoryUsage();
      m.respond(new TextEncoder().encode(JSON.stringify({
        heapUsed: mem.heapUsed, rss: mem.rss, liveRuns: owner.liveCount, sleepingRuns: owner.sleepingCount,
        sfnLive: sfn.liveCount, sfnSleeping: sfn.sleepingCount, ownerCalls: router.ownerCalls(),
      })));
    },
  });
  // The server knows the API and partition subscriptions before anyone is told the node is up.
  await nats.nc.flush();
  log.info({ nats: config.natsUrl, partitions: config.partitions, recovered, owned: router.owned.size, cluster: config.cluster }, 'engine node started');
  const node: EngineNode = {
    config, nats, ctx, owner, sfn, router, log, metrics, inspector, leases, http, readiness,
    async stop() {
      readiness.stopping();
      // Each phase's ms go into the log line: a slow stop names the phase that waited.
      const phases: Record<string, number> = {};
      let mark = Date.now();
      const lap = (name: string) => { const now = Date.now(); phases[name] = now - mark; mark = now; };
      const t0 = mark;
      // Express executions live only here: they end now, so StartSyncExecution calls in flight are answered before the drains.
      sfnExpress.stop();
      const httpDrained = node.http?.drain(config.apiDrainMs); // refuses new HTTP requests at once
      queues.close();
      await httpDrained;
      lap('http');
      await api.drain(config.apiDrainMs);
      lap('api');
      await leases?.stop(); // hands every partition over at once
      lap('leases');
      router.stop();
      registry.stop();
      await owner.stop();
      await sfn.stop();
      lap('owners');
      inspector?.stop();
      retention.stop();
      visFeed.stop();
      await nats.nc.drain();
      lap('nats');
      log.info({ ms: Date.now() - t0, phases }, 'engine node stopped');
    },
  };
  if (http) {
    http.addGetRoute('/metrics', metrics.handler());
    mountConsole(node); // the web console: GET / and /console/… (src/console/console.ts)
    http.open(); // AWS requests, refused with 503 during start-up, are served from now on
  }
  readiness.serving();
  return node;
}
