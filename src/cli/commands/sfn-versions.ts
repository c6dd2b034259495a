import type { Command } from '../context.js';
import { isoTime, plural, table } from '../format.js';
import { collectPages } from './lists.js';
import { paging, pagingFlags, stateMachineArn, stateMachineFlag } from './sfn-lists.js';

interface VersionItem { stateMachineVersionArn: string; creationDate: number }
interface AliasItem { stateMachineAliasArn: string; creationDate: number }
interface AliasDescription { name: string; routingConfiguration: Array<{ stateMachineVersionArn: string; weight: number }> }

/** The `:N` of a version ARN, the `:name` of an alias ARN. */
const qualifier = (arn: string) => arn.slice(arn.lastIndexOf(':') + 1);

export const sfnVersionsCommand: Command = {
  name: 'sfn versions',
  summary: 'list the published versions of a state machine',
  usage: 'sfn versions --state-machine ARN|NAME [--limit N] [--page-size N]',
  flags: { ...stateMachineFlag, ...pagingFlags },
  details: 'Newest first (ListStateMachineVersions).',
  async run(ctx) {
    const { limit, maxResults } = paging(ctx, 'sfn versions');
    const arn = await stateMachineArn(ctx);
    const versions = await collectPages<VersionItem>(ctx, 'ListStateMachineVersions', { stateMachineArn: arn, maxResults }, 'stateMachineVersions', 'versions', limit, 'nextToken');
    if (ctx.json) return ctx.io.out(JSON.stringify({ stateMachineVersions: versions }, null, 2));
    if (versions.length === 0) return ctx.io.out(`no versions of ${arn}`);
    ctx.io.out(table(['VERSION', 'CREATED', 'ARN'], versions.map((v) => [qualifier(v.stateMachineVersionArn), isoTime(v.creationDate), v.stateMachineVersionArn])));
    ctx.io.out(plural(versions.length, 'version'));
  },
};

export const sfnAliasesCommand: Command = {
  name: 'sfn aliases',
  summary: 'list the aliases of a state machine and the versions they route to',
  usage: 'sfn aliases --state-machine ARN|NAME [--limit N] [--page-size N]',
  flags: { ...stateMachineFlag, ...pagingFlags },
  details: 'ListStateMachineAliases, each alias described (DescribeStateMachineAlias) for its routing.',
  async run(ctx) {
    const { limit, maxResults } = paging(ctx, 'sfn aliases');
    const arn = await stateMachineArn(ctx);
    const items = await collectPages<AliasItem>(ctx, 'ListStateMachineAliases', { stateMachineArn: arn, maxResults }, 'stateMachineAliases', 'aliases', limit, 'nextToken');
    const client = await ctx.client();
    const aliases = await Promise.all(items.map(async (a) => ({
      ...a, ...(await client.call<AliasDescription>('DescribeStateMachineAlias', { stateMachineAliasArn: a.stateMachineAliasArn })),
    })));
    if (ctx.json) return ctx.io.out(JSON.stringify({ stateMachineAliases: aliases }, null, 2));
    if (aliases.length === 0) return ctx.io.out(`no aliases of ${arn}`);
    ctx.io.out(table(['ALIAS', 'ROUTING', 'CREATED', 'ARN'], aliases.map((a) => [
      a.name, a.routingConfiguration.map((r) => `${qualifier(r.stateMachineVersionArn)}:${r.weight}%`).join(' '), isoTime(a.creationDate), a.stateMachineAliasArn,
    ])));
    ctx.io.out(plural(aliases.length, 'alias', 'aliases'));
  },
};
