import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import { Fault, faultStatus } from '../protocol/faults.js';
import type { Operation, ServiceContext } from '../service/context.js';
import { readBody } from './http-body.js';
import { hostAllowed } from './host-check.js';
import type { HttpGatewayConfig } from './http-options.js';
import { SigV4Failure, verifySigV4 } from './sigv4.js';
import { authorizeDomains, authorizeService } from './domain-access.js';
import { ConnectionCap } from './connection-cap.js';
import { DEFAULT_API_DRAIN_MS } from './request-limit.js';
import { RequestFailures } from './failures.js';
import { requestDepthFault } from '../protocol/nesting.js';

export const AWS_JSON_1_0 = 'application/x-amz-json-1.0';

/** One `X-Amz-Target` prefix: its operations and its SigV4 signing name. */
/** A GET handler: it writes the whole response itself. */
export type GetHandler = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> | void;

export interface TargetService {
  ops: Readonly<Record<string, Operation>>;
  signingName: string;
}

/** An answer that is not a success: HTTP status plus the AWS JSON error body. */
interface WireError {
  status: number;
  type: string;
  message: string;
  headers?: Record<string, string>;
}

const CONTENT_TYPE = /^application\/(x-amz-json-1\.[01]|json)\s*(;.*)?$/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The AWS JSON 1.0 HTTP gateway (ARCHITECTURE decision 8): `POST /` with
 * `X-Amz-Target: SimpleWorkflowService.<Action>` (or `AWSStepFunctions.<Action>`), dispatched to the
 * same operation table as the NATS transport. Faults become HTTP 400 (InternalFailure 500) with
 * `{"__type", "message"}`; signature failures 403. No `x-amzn-errortype` header is ever sent.
 */
export class HttpGateway {
  private readonly server: Server;
  private readonly signingNames: string[];
  private inflight = 0;
  private draining = false;
  /** AWS requests wait for `open()` (503 during start-up); GET routes (/healthz, /readyz) answer at once. */
  private opened = true;
  /**
   * Another proof of an access key than SigV4 (the console's session cookie): returns the verified
   * access key id, or undefined to fall back to SigV4.
   */
  sessionCaller?: (req: IncomingMessage) => string | undefined;
  /** The bound on open connections (AF_HTTP_MAX_CONNECTIONS). */
  readonly cap: ConnectionCap;
  private readonly failures: RequestFailures;

  constructor(private readonly ctx: ServiceContext, private readonly services: Readonly<Record<string, TargetService>>,
    readonly config: HttpGatewayConfig, private readonly log: Logger) {
    this.signingNames = Object.values(services).map((s) => s.signingName);
    this.failures = new RequestFailures(log);
    // Headers and body must arrive within requestTimeoutMs (checked every second); a held poll is not
    // cut, the clock stops once the request is in. keepAliveTimeout bounds an idle kept-alive connection.
    this.server = createServer({
      keepAliveTimeout: 65_000, requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.max(1000, Math.floor(config.requestTimeoutMs / 2)), connectionsCheckingInterval: 1000,
    }, (req, res) => {
      this.inflight++;
      this.handle(req, res)
        .catch((err: unknown) => {
          this.log.error({ err }, 'http request failed');
          this.reply(res, { status: 500, type: 'InternalFailure', message: 'internal error' });
        })
        .finally(() => { this.inflight--; });
    });
    this.cap = new ConnectionCap(this.server, config.maxConnections);
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => this.malformed(err, socket));
  }

  /** Binds the listening socket; resolves once it listens. */
  async listen(): Promise<void> {
    const { host, port } = this.config;
    await new Promise<void>((resolve, reject) => {
      const onError = (e: NodeJS.ErrnoException) => {
        reject(e.code === 'EADDRINUSE'
          ? new Error(`HTTP gateway: ${host}:${port} is already in use (set AF_HTTP_PORT or --http-port)`, { cause: e })
          : e);
      };
      this.server.once('error', onError);
      this.server.listen(port, host, () => { this.server.off('error', onError); resolve(); });
    });
    this.server.on('error', (err) => this.log.error({ err }, 'http server error'));
    const auth = this.config.accessKeys.size > 0 ? `SigV4 with ${this.config.accessKeys.size} access key(s)` : 'none';
    this.log.info({ url: this.url, auth }, 'AWS JSON 1.0 HTTP gateway listening');
    if (this.config.accessKeys.size === 0) {
      this.log.warn({ url: this.url }, 'no access keys configured (AF_ACCESS_KEYS): the HTTP gateway accepts any signature and serves loopback only');
    }
  }

  /** The bound port (the real one when the configured port was 0). */
  get port(): number {
    return (this.server.address() as AddressInfo | null)?.port ?? this.config.port;
  }

  /** Requests being handled (held polls included). */
  get inflightRequests(): number {
    return this.inflight;
  }

  get url(): string {
    const h = this.config.host.includes(':') ? `[${this.config.host}]` : this.config.host;
    return `http://${h}:${this.port}`;
  }

  /**
   * Graceful stop: new requests are refused at once (503); requests in flight get up to `timeoutMs`
   * (held polls end as soon as the task lists close); then every connection is closed.
   */
  private readonly getRoutes: { prefix: string; handler: GetHandler }[] = [];

  /**
   * Serves GET (and HEAD) requests under a path prefix beside the AWS protocol's POST / (the web
   * console, /metrics). Longer prefixes win.
   */
  addGetRoute(prefix: string, handler: GetHandler): void {
    this.getRoutes.push({ prefix, handler });
    this.getRoutes.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  /** Paths served for POST besides the AWS protocol's `/` (the console's login). */
  private readonly postRoutes = new Map<string, GetHandler>();

  addPostRoute(path: string, handler: GetHandler): void {
    this.postRoutes.set(path, handler);
  }

  /** AWS requests, refused (503) until now while the node starts, are served. */
  open(): void {
    this.opened = true;
  }

  /** Refuses AWS requests with 503 until `open()`. */
  closeUntilOpen(): void {
    this.opened = false;
  }

  async drain(timeoutMs = DEFAULT_API_DRAIN_MS): Promise<void> {
    this.draining = true;
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const until = Date.now() + timeoutMs;
    while (this.inflight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Every request's id: in the x-amzn-RequestId header (the SDKs' $metadata.requestId) and its log lines.
    const requestId = randomUUID();
    res.setHeader('x-amzn-RequestId', requestId);
    const log = this.log.child({ requestId });
    if (this.draining) {
      req.resume();
      return this.reply(res, { status: 503, type: 'ServiceUnavailable', message: 'node is shutting down', headers: { connection: 'close' } });
    }
    // Without keys nothing but the Host header tells a local client from a page of another site whose
    // name now resolves to 127.0.0.1 (DNS rebinding): only loopback names and the configured host are served.
    // The AWS SDKs send StartSyncExecution and TestState to `sync-<endpoint host>`, a name that neither
    // resolves nor passes here: clients turn that prefix off (JS SDK `disableHostPrefix: true`, botocore
    // `Config(inject_host_prefix=False)`; see operations/start-sync-execution.ts).
    if (this.config.accessKeys.size === 0 && !hostAllowed(req.headers.host, this.config.host)) {
      req.resume();
      return this.reply(res, {
        status: 421, type: 'MisdirectedRequestException',
        message: 'Without access keys the gateway answers only to a loopback host name (localhost, 127.0.0.1, [::1]) or its configured host',
        headers: { connection: 'close' },
      });
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (req.method === 'GET' || req.method === 'HEAD') {
      const route = this.getRoutes.find((r) => path === r.prefix || path.startsWith(r.prefix.endsWith('/') ? r.prefix : `${r.prefix}/`));
      if (route) {
        req.resume();
        try {
          await route.handler(req, res, path);
        } catch (err) {
          log.error({ err, path }, 'GET handler failed');
          if (!res.headersSent) this.reply(res, { status: 500, type: 'InternalFailure', message: 'internal error' });
          else res.end();
        }
        return;
      }
    }
    const postRoute = req.method === 'POST' ? this.postRoutes.get(path) : undefined;
    if (postRoute) return postRoute(req, res, path);
    if (req.method !== 'POST') {
      req.resume();
      return this.reply(res, { status: 405, type: 'MethodNotAllowedException', message: `${req.method} is not served here: AWS JSON 1.0 requests are POST /`, headers: { allow: 'POST' } });
    }
    if (path !== '/') {
      req.resume();
      return this.reply(res, { status: 404, type: 'UnknownOperationException', message: `No such path ${path.slice(0, 200)}: AWS JSON 1.0 requests are POST /` });
    }
    if (!this.opened) {
      req.resume();
      return this.reply(res, { status: 503, type: 'ServiceUnavailable', message: 'node is starting: its partitions are being rebuilt' });
    }
    const body = await readBody(req, this.config.maxBodyBytes);
    if (body === 'aborted') return;
    if (body === 'too-large') {
      return this.reply(res, { status: 413, type: 'RequestEntityTooLargeException', message: `Request body is larger than ${this.config.maxBodyBytes} bytes`, headers: { connection: 'close' } });
    }
    const target = req.headersDistinct['x-amz-target']?.[0];
    const [prefix, action] = splitTarget(target);
    const service = Object.hasOwn(this.services, prefix) ? this.services[prefix] : undefined;
    const checked = this.check(req, path, q < 0 ? '' : url.slice(q + 1), body, service);
    if ('status' in checked) return this.reply(res, checked);
    // Access keys limited to some domains (AF_ACCESS_KEYS `AKID:SECRET:a|b`); undefined = unrestricted.
    const limit = checked.caller === undefined ? undefined : this.config.accessDomains?.get(checked.caller);
    try {
      if (service) authorizeService(limit, checked.caller!, { service: prefix, action });
    } catch (e) {
      return this.reply(res, faultReply(e));
    }
    if (!service || !Object.hasOwn(service.ops, action)) {
      return this.reply(res, { status: 400, type: 'UnknownOperationException', message: target ? `Unknown operation ${target.slice(0, 200)}` : 'Missing X-Amz-Target header' });
    }
    const op = service.ops[action]!;
    let input: unknown;
    try {
      input = body.length === 0 ? {} : JSON.parse(utf8.decode(body));
    } catch {
      return this.reply(res, { status: 400, type: 'SerializationException', message: 'Request body is not valid UTF-8 JSON' });
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return this.reply(res, { status: 400, type: 'SerializationException', message: 'Request body must be a JSON object' });
    }
    const tooDeep = requestDepthFault(input);
    if (tooDeep) return this.reply(res, faultReply(tooDeep));
    // A client that goes away while its poll is held must not take a task with it.
    const gone = new AbortController();
    res.once('close', () => { if (!res.writableFinished) gone.abort(); });
    const t0 = Date.now();
    const base: ServiceContext = { ...this.ctx, log };
    try {
      const ctx = limit ? authorizeDomains(base, limit, checked.caller!, { service: prefix, action }, input as Record<string, unknown>) : base;
      const result = await op(ctx, input, gone.signal);
      this.reply(res, { status: 200, body: JSON.stringify(result ?? {}) });
      log.debug({ action, caller: checked.caller, ms: Date.now() - t0 }, 'request served');
    } catch (e) {
      this.reply(res, faultReply(this.failures.answer(e, log, { action, caller: checked.caller, ms: Date.now() - t0 })));
    }
  }

  /**
   * Signature (scoped to the target's signing name when the target is known) and content type; the
   * verified access key id, when keys are configured.
   */
  private check(req: IncomingMessage, path: string, query: string, body: Buffer, service: TargetService | undefined): WireError | { caller?: string } {
    let caller: string | undefined;
    const session = this.config.accessKeys.size > 0 && req.headers.authorization === undefined ? this.sessionCaller?.(req) : undefined;
    if (session !== undefined) {
      caller = session;
    } else if (this.config.accessKeys.size > 0) {
      try {
        ({ accessKeyId: caller } = verifySigV4({ method: req.method ?? 'POST', path, query, headers: req.headersDistinct, body }, this.config.accessKeys,
          { now: Date.now(), region: this.ctx.region, services: service ? [service.signingName] : this.signingNames }));
      } catch (e) {
        if (!(e instanceof SigV4Failure)) throw e;
        this.log.debug({ fault: e.name, reason: e.message }, 'signature refused');
        return { status: 403, type: e.name, message: e.message };
      }
    }
    const type = req.headers['content-type'];
    if (type !== undefined && !CONTENT_TYPE.test(type)) {
      return { status: 400, type: 'SerializationException', message: `Unsupported Content-Type ${type.slice(0, 100)}: use ${AWS_JSON_1_0}` };
    }
    return { caller };
  }

  private reply(res: ServerResponse, r: WireError | { status: 200; body: string }): void {
    if (res.headersSent || res.destroyed) return;
    const body = 'body' in r ? r.body : JSON.stringify({ __type: r.type, message: r.message });
    res.writeHead(r.status, {
      ...('headers' in r ? r.headers : {}),
      'content-type': AWS_JSON_1_0,
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  }

  /** An unparseable HTTP request still gets a JSON error, then the connection closes. */
  private malformed(err: NodeJS.ErrnoException, socket: Socket): void {
    const answering = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) { socket.destroy(); return; }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify({ __type: 'SerializationException', message: `Malformed HTTP request (${err.code ?? 'parse error'})` });
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${AWS_JSON_1_0}\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
}

function splitTarget(target: string | undefined): [string, string] {
  const dot = target?.indexOf('.') ?? -1;
  return dot < 0 ? ['', ''] : [target!.slice(0, dot), target!.slice(dot + 1)];
}

function faultReply(e: unknown): WireError {
  if (e instanceof Fault) return { status: faultStatus(e.name), type: e.name, message: e.message };
  return { status: 500, type: 'InternalFailure', message: 'internal error' };
}

/** Starts the gateway on its configured host and port. */
export async function startHttpGateway(ctx: ServiceContext, services: Readonly<Record<string, TargetService>>,
  config: HttpGatewayConfig, log: Logger, opts: { startClosed?: boolean } = {}): Promise<HttpGateway> {
  const gateway = new HttpGateway(ctx, services, config, log);
  if (opts.startClosed) gateway.closeUntilOpen();
  await gateway.listen();
  return gateway;
}
