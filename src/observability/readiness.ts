import type { NatsConnection } from '@nats-io/transport-node';
import type { ServerResponse } from 'node:http';

/** What `/readyz` answers: ready, or not with a short reason (nothing else about the node). */
export type ReadyState = { ready: true } | { ready: false; reason: string };

/** Partitions this node holds but has not rebuilt yet (cluster mode: the LeaseManager). */
export interface PendingPartitions {
  pendingPartitions(): number;
}

/**
 * The node's readiness for a load balancer: not ready while it starts (partitions being rebuilt
 * from history on every partition host), while it holds leased partitions it has not rebuilt yet,
 * while its NATS connection is down, and once it is shutting down.
 */
export class Readiness {
  private phase: 'starting' | 'serving' | 'stopping' = 'starting';
  private natsUp = true;
  constructor(nc: Pick<NatsConnection, 'status' | 'isClosed'>, private readonly leases?: PendingPartitions) {
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' || s.type === 'staleConnection') this.natsUp = false;
        else if (s.type === 'reconnect') this.natsUp = true;
      }
    })().catch(() => undefined);
    this.closed = () => nc.isClosed();
  }

  private readonly closed: () => boolean;

  /** Start-up recovery is done and the node serves its partitions. */
  serving(): void {
    if (this.phase === 'starting') this.phase = 'serving';
  }

  stopping(): void {
    this.phase = 'stopping';
  }

  state(): ReadyState {
    if (this.phase === 'stopping') return { ready: false, reason: 'shutting down' };
    if (!this.natsUp || this.closed()) return { ready: false, reason: 'NATS is disconnected' };
    if (this.phase === 'starting') return { ready: false, reason: 'starting: owned partitions are being rebuilt from history' };
    const pending = this.leases?.pendingPartitions() ?? 0;
    if (pending > 0) return { ready: false, reason: `${pending} owned partition(s) are being rebuilt from history` };
    return { ready: true };
  }
}

/** GET /healthz: 200 while the process serves HTTP. */
export function healthz(_req: unknown, res: ServerResponse): void {
  probe(res, 200, { status: 'ok' });
}

/** GET /readyz: 200 when ready, else 503 with the reason. */
export function readyz(readiness: Readiness): (req: unknown, res: ServerResponse) => void {
  return (_req, res) => {
    const s = readiness.state();
    probe(res, s.ready ? 200 : 503, s.ready ? { status: 'ready' } : { status: 'not ready', reason: s.reason });
  };
}

function probe(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}
