import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Nats } from '../nats/infrastructure.js';
import type { PartitionOwner } from '../swf/kind/partition-owner.js';
import type { Router } from '../engine/router.js';
import type { ServiceContext } from '../service/context.js';
import type { HttpGateway } from '../transport/http-gateway.js';
import { hostAllowed } from '../transport/host-check.js';
import { authorizeDomains, authorizeService } from '../transport/domain-access.js';
import { mountLogin, sessionInfo } from './console-login.js';
import { RunFeeds } from './run-feeds.js';

/** What an SSE stream is fed by (RunFeeds for SWF runs, SfnFeeds for Step Functions executions). */
interface EventSink<U> { update(u: U): void; error(message: string): void; ready(): boolean }
import { machineGraphs, Replayer, type MachineGraphs } from './run-snapshot.js';
import { SfnFeeds } from './sfn-feeds.js';

const STATIC_DIR = fileURLToPath(new URL('./static/', import.meta.url));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};
/** Everything the page loads comes from this node: no CDN, no inline script. */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'";
const KEEPALIVE_MS = 15_000;
/** The graph layout library the Step Functions pages use, served from the installed package (no CDN). */
const VENDOR: Readonly<Record<string, string>> = { 'elk.bundled.js': createRequire(import.meta.url).resolve('elkjs/lib/elk.bundled.js') };

/** The parts of an engine node the console uses. */
/** What the console uses of a node (named here, not taken from node.ts: the node mounts the console). */
export interface ConsoleNode { owner: PartitionOwner; router: Router; nats: Nats; ctx: ServiceContext; log: Logger; http?: HttpGateway }

export interface WebConsole {
  feeds: RunFeeds;
  sfnFeeds: SfnFeeds;
  graphs: MachineGraphs;
  stop(): void;
}

/**
 * The web console on the node's HTTP server (GET routes beside the AWS protocol's POST /):
 * - `/` redirects browsers (Accept: text/html) to `/console/`; other GETs of `/` keep the gateway's 405;
 * - `/console/…` pages (one HTML shell, routed in the page), `/console/static/*` their files;
 * - `/console/api/machines`: the four machine definitions as graphs;
 * - `/console/api/executions/<domain>/<workflowId>/<runId>`: the run's history, summary and actors (JSON);
 * - `/console/api/executions/<domain>/<workflowId>/<runId>/events`: the same as server-sent events,
 *   a first message with the whole history, then one per change (see RunFeeds);
 * - `/console/api/sfn/events?executionArn=<arn>`: a Step Functions execution as server-sent events
 *   (its definition and history, then what changes; see SfnFeeds);
 * - `/console/static/vendor/elk.bundled.js`: elkjs from node_modules, which lays out state machine graphs.
 * Reads and actions of the pages (list domains, types and executions, signal, cancel, terminate) are
 * AWS JSON 1.0 requests to POST / with X-Amz-Target: the same operations table as every client.
 *
 * Without access keys the console answers only requests whose Host is a loopback name or the
 * configured host (DNS rebinding). With access keys (AF_ACCESS_KEYS) its pages show a sign-in form
 * until the browser holds a session cookie for one of them (see console-login.ts); then its AWS
 * requests and its GET API carry that key's domain limits (a limited key lists only its domains).
 */
export function mountConsole(node: ConsoleNode): WebConsole {
  const http = node.http;
  if (!http) throw new Error('the web console needs the HTTP gateway (startNode({ http }))');
  const replayer = new Replayer(node.ctx.clock);
  const graphs = machineGraphs(node.owner.machines);
  const feeds = new RunFeeds({
    owner: node.owner, router: node.router, nats: node.nats, store: node.ctx.store, clock: node.ctx.clock, log: node.log.child({ c: 'console' }),
  }, graphs, replayer);
  const sfnFeeds = new SfnFeeds(node.ctx, node.log.child({ c: 'console' }));
  const files = new Set(readdirSync(STATIC_DIR).filter((f) => Object.hasOwn(TYPES, extname(f))));
  // With access keys the console asks for one (a sign-in form, then a session cookie) and shows what it may use.
  const sessions = http.config.accessKeys.size > 0 ? mountLogin(http, node.ctx.tokens.derivedKey('console-session'), node.log.child({ c: 'console' })) : undefined;

  const page = async (res: ServerResponse, head: boolean) => sendFile(res, 'index.html', head);
  const sendFile = async (res: ServerResponse, name: string, head: boolean) => {
    if (Object.hasOwn(VENDOR, name.slice('vendor/'.length)) && name.startsWith('vendor/')) {
      return send(res, 200, TYPES['.js']!, await readFile(VENDOR[name.slice('vendor/'.length)]!), head);
    }
    if (!files.has(name)) return send(res, 404, 'text/plain; charset=utf-8', 'not found', head);
    const body = await readFile(`${STATIC_DIR}${name}`);
    return send(res, 200, TYPES[extname(name)]!, body, head);
  };

  http.addGetRoute('/', (req, res, path) => {
    const head = req.method === 'HEAD';
    if (path === '/' && (req.headers.accept ?? '').includes('text/html')) {
      res.writeHead(302, { location: '/console/', 'content-length': 0 });
      res.end();
      return;
    }
    // What the gateway answers a GET it does not serve (AWS clients and tests rely on it).
    const body = JSON.stringify({ __type: 'MethodNotAllowedException', message: `${req.method} is not served here: AWS JSON 1.0 requests are POST /` });
    res.writeHead(405, { allow: 'POST', 'content-type': 'application/x-amz-json-1.0', 'content-length': Buffer.byteLength(body) });
    res.end(head ? undefined : body);
  });

  http.addGetRoute('/console', async (req, res, path) => {
    const head = req.method === 'HEAD';
    // Without keys the gateway listens on loopback only; a page reached under another host name is
    // a DNS-rebinding attempt to read histories from another site's page.
    if (!sessions && !hostAllowed(req.headers.host, http.config.host)) {
      return send(res, 421, 'text/plain; charset=utf-8', 'The console answers only to a loopback host name (localhost, 127.0.0.1, [::1]).\n', head);
    }
    if (path === '/console') {
      res.writeHead(302, { location: '/console/', 'content-length': 0 });
      res.end();
      return;
    }
    if (path.startsWith('/console/static/')) return sendFile(res, path.slice('/console/static/'.length), head);
    const session = sessions?.verify(req.headers.cookie);
    const limit = session && http.config.accessDomains.get(session.accessKeyId);
    if (sessions && !session) {
      if (path.startsWith('/console/api/')) return json(res, 401, { message: 'Sign in with an access key first (POST /console/session)' }, head);
      return sendFile(res, 'login.html', head);
    }
    if (path === '/console/api/session') return json(res, 200, session ? sessionInfo(session, limit) : {}, head);
    if (path === '/console/api/machines') return json(res, 200, graphs, head);
    if (path === '/console/api/sfn/events') {
      const executionArn = new URL(req.url ?? '/', 'http://console').searchParams.get('executionArn') ?? '';
      try {
        if (session) authorizeService(limit, session.accessKeyId, { service: 'AWSStepFunctions', action: 'GetExecutionHistory' });
      } catch (e) {
        return json(res, 403, { __type: (e as Error).name, message: (e as Error).message }, head);
      }
      return serveEvents(res, head, (sink) => sfnFeeds.watch(executionArn, sink));
    }
    if (path.startsWith('/console/api/executions/')) {
      const parts = path.slice('/console/api/executions/'.length).split('/');
      let ids: string[];
      try {
        ids = parts.map((p) => decodeURIComponent(p));
      } catch {
        return json(res, 400, { message: 'malformed path' }, head);
      }
      const stream = ids.length === 4 && ids[3] === 'events';
      if ((ids.length !== 3 && !stream) || ids.slice(0, 3).some((x) => x === '')) {
        return json(res, 404, { message: 'use /console/api/executions/<domain>/<workflowId>/<runId>[/events]' }, head);
      }
      const [domain, workflowId, runId] = ids as [string, string, string];
      // The gateway's own domain check for a key limited to some domains.
      try {
        if (session) authorizeDomains(node.ctx, limit, session.accessKeyId, { service: 'SimpleWorkflowService', action: 'GetWorkflowExecutionHistory' }, { domain });
      } catch (e) {
        return json(res, 403, { __type: (e as Error).name, message: (e as Error).message }, head);
      }
      const key = { domain, workflowId, runId, partition: node.router.partitionOf(domain, workflowId) };
      if (!stream) {
        const snap = await feeds.snapshot(key);
        return snap ? json(res, 200, snap, head) : json(res, 404, { message: `Unknown execution: workflowId=${workflowId}, runId=${runId}` }, head);
      }
      return serveEvents(res, head, (sink) => feeds.watch(key, sink));
    }
    if (path.startsWith('/console/api/')) return json(res, 404, { message: 'no such console API' }, head);
    return page(res, head);
  });

  node.log.info({ url: `${http.url}/console/`, signIn: sessions !== undefined }, 'web console');
  return { feeds, sfnFeeds, graphs, stop: () => { feeds.stop(); sfnFeeds.stop(); } };
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, head: boolean): void {
  res.writeHead(status, {
    'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-cache',
    'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin',
  });
  res.end(head ? undefined : body);
}

function json(res: ServerResponse, status: number, value: unknown, head: boolean): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value), head);
}

/**
 * A server-sent-events stream. The handler returns at once (the gateway does not count the open
 * stream as a request in flight, so a graceful stop does not wait for it: the gateway's
 * closeAllConnections ends it, and its close ends the feed).
 */
function serveEvents<U>(res: ServerResponse, head: boolean, watch: (sink: EventSink<U>) => () => void): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive', 'x-accel-buffering': 'no', 'x-content-type-options': 'nosniff',
  });
  if (head) { res.end(); return; }
  res.write('retry: 2000\n\n');
  const write = (event: string, data: unknown) => { res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`); };
  const unwatch = watch({
    update: (u: U) => write('run', u),
    error: (message) => { write('failure', { message }); },
    ready: () => !res.writableNeedDrain && !res.destroyed,
  });
  const keepalive = setInterval(() => { res.write(': keepalive\n\n'); }, KEEPALIVE_MS);
  keepalive.unref();
  const done = () => { clearInterval(keepalive); unwatch(); };
  res.once('close', done);
}
