import { UsageError, str } from '../args.js';
import { CliError, type Command } from '../context.js';
import { plural, table } from '../format.js';

export const quarantineCommand: Command = {
  name: 'quarantine',
  summary: 'list or drop stored messages that do not decode or fit their shape (damaged history, task or KV records)',
  usage: 'quarantine list [--stream S] | quarantine drop <stream> <seq>',
  positionals: true,
  flags: {
    stream: { type: 'string', value: 'S', help: 'list only this stream (e.g. AF_HISTORY, AF_TASKS, KV_af_runs)' },
  },
  details: 'The engine leaves a damaged message where it is, logs and counts it (actorflow_quarantined_records_total),\n'
    + 'and answers InternalFailure for the run it belongs to. "list" scans the streams and buckets as the engine reads them;\n'
    + '"drop" deletes one damaged message (a KV record is purged) and refuses one that is not damaged.\n'
    + 'Reads JetStream directly, so it needs engine credentials when NATS has users (NATS_USER=engine NATS_PASSWORD=…).',
  async run(ctx) {
    const [sub, ...rest] = ctx.positionals;
    const { listQuarantined, dropQuarantined } = await import('../../history/quarantine-scan.js');
    const client = await ctx.client();
    if (sub === 'list') {
      if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`, 'quarantine');
      const found = await listQuarantined(client.nc, ctx.prefix, str(ctx.flags, 'stream')).catch((e: Error) => { throw new CliError(e.message); });
      if (ctx.json) return ctx.io.out(JSON.stringify({ quarantined: found }, null, 2));
      if (found.length === 0) return ctx.io.out('no damaged messages');
      ctx.io.out(table(['STREAM', 'SEQ', 'KIND', 'SUBJECT', 'PROBLEM'], found.map((q) => [q.stream, String(q.seq), q.kind, q.subject, q.reason])));
      ctx.io.out(`${plural(found.length, 'damaged message')}; data (first bytes):`);
      for (const q of found) ctx.io.out(`  ${q.stream} ${q.seq} (${q.bytes} bytes): ${q.preview}`);
      return;
    }
    if (sub === 'drop') {
      if (rest.length !== 2) throw new UsageError('quarantine drop needs a stream and a sequence', 'quarantine');
      if (str(ctx.flags, 'stream') !== undefined) throw new UsageError('--stream is for quarantine list', 'quarantine');
      const [stream, seqText] = rest as [string, string];
      const seq = Number(seqText);
      if (!/^[1-9][0-9]*$/.test(seqText) || !Number.isSafeInteger(seq)) throw new UsageError(`the sequence must be a positive integer, got ${JSON.stringify(seqText)}`, 'quarantine');
      const dropped = await dropQuarantined(client.nc, ctx.prefix, stream, seq).catch((e: Error) => { throw new CliError(e.message); });
      if (ctx.json) return ctx.io.out(JSON.stringify({ dropped }, null, 2));
      ctx.io.out(`dropped ${dropped.stream} ${dropped.seq} (${dropped.subject}): ${dropped.reason}`);
      return;
    }
    throw new UsageError(sub === undefined ? 'quarantine needs a subcommand: list or drop' : `unknown quarantine subcommand ${JSON.stringify(sub)} (expected list or drop)`, 'quarantine');
  },
};
