import { UsageError } from '../args.js';
import type { Command } from '../context.js';

export const clusterCommand: Command = {
  name: 'cluster',
  summary: 'show the engine nodes of a cluster, which node owns which partition, and lease ages',
  usage: 'cluster status',
  positionals: true,
  flags: {},
  details: 'Reads the af_leases and af_cluster KV buckets, so it needs engine credentials when NATS has users\n'
    + '(NATS_USER=engine NATS_PASSWORD=…). A partition shown FREE has no owner right now (a hand-over or a failover).',
  async run(ctx) {
    const [sub, ...rest] = ctx.positionals;
    if (sub !== 'status') throw new UsageError(sub === undefined ? 'cluster needs a subcommand: status' : `unknown cluster subcommand ${JSON.stringify(sub)} (expected status)`, 'cluster');
    if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`, 'cluster');
    const { readClusterStatus, formatClusterStatus } = await import('../../cluster/cluster-status.js');
    const client = await ctx.client();
    const status = await readClusterStatus(client.nc, ctx.prefix);
    ctx.io.out(ctx.json ? JSON.stringify(status, null, 2) : formatClusterStatus(status));
  },
};
