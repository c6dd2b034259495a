import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Bounds the open connections of an HTTP server. Without a bound, enough idle or slow connections
 * use up the process's file descriptors and no new client gets in. At the cap a new connection
 * takes the place of the longest-idle one (connected, no request being answered): an idle
 * connection costs its owner only a reconnect, while a held long poll is never cut. When every
 * connection is answering a request, the new one is closed at once.
 */
export class ConnectionCap {
  /** Connections with no request being answered, longest idle first (a Set keeps insertion order). */
  private readonly idle = new Set<Socket>();
  private readonly active = new Map<Socket, number>();
  private open = 0;
  /** Connections closed to keep the cap (evicted idle ones and refused new ones). */
  shed = 0;

  constructor(server: Server, private readonly max: number) {
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (req, res) => {
      const socket = req.socket;
      this.idle.delete(socket);
      this.active.set(socket, (this.active.get(socket) ?? 0) + 1);
      res.once('close', () => {
        const n = (this.active.get(socket) ?? 1) - 1;
        if (n > 0) { this.active.set(socket, n); return; }
        this.active.delete(socket);
        if (!socket.destroyed) this.idle.add(socket);
      });
    });
  }

  /** Open connections now. */
  get connections(): number {
    return this.open;
  }

  private admit(socket: Socket): void {
    if (this.open >= this.max) {
      const oldest = this.idle.values().next();
      if (oldest.done) { this.shed++; socket.destroy(); return; }
      this.idle.delete(oldest.value);
      this.shed++;
      oldest.value.destroy();
    }
    this.open++;
    this.idle.add(socket);
    socket.once('close', () => {
      this.open--;
      this.idle.delete(socket);
      this.active.delete(socket);
    });
  }
}
