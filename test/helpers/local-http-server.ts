import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One request a local test server received, body read. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  rawHeaders: string[];
  body: Buffer;
}

export interface LocalHttpServer {
  readonly port: number;
  readonly origin: string;
  /** Every request received, in order. */
  readonly seen: SeenRequest[];
  /** TCP connections accepted (a refused call must leave this at 0). */
  connections: number;
  stop(): Promise<void>;
}

/** A node:http server on 127.0.0.1 and a random port that answers with `handle`. */
export async function startLocalHttpServer(handle: (req: SeenRequest, res: ServerResponse) => void | Promise<void>): Promise<LocalHttpServer> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: SeenRequest = { method: req.method!, url: req.url!, headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) };
      seen.push(r);
      void Promise.resolve(handle(r, res)).catch((e: unknown) => { res.statusCode = 599; res.end(String(e)); });
    });
  });
  const h = { seen, connections: 0, port: 0, origin: '', stop: async () => {} };
  server.on('connection', () => { h.connections++; });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  h.port = (server.address() as { port: number }).port;
  h.origin = `http://127.0.0.1:${h.port}`;
  h.stop = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return h;
}

/** Answers JSON with a status. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
