import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { packageRoot } from '../nats/package-root.js';
import { Fault } from '../protocol/faults.js';
import type { ActorFlowClient } from '../sdk/client.js';
import { UsageError, describeFlags, parseArgs, type FlagSpecs } from './args.js';
import { CliError, type CliIO, type Command, type CommandContext } from './context.js';
import { demoCommand, machinesCommand, serveCommand } from './commands/engine.js';
import { domainsCommand, executionsCommand } from './commands/lists.js';
import { describeCommand, historyCommand, signalCommand, terminateCommand } from './commands/runs.js';
import { clusterCommand } from './commands/cluster.js';
import { quarantineCommand } from './commands/quarantine.js';
import { SFN_COMMANDS, sfnGroupCommand } from './commands/sfn.js';
import { replayCommand } from './commands/replay.js';

const DEFAULT_NATS = 'nats://127.0.0.1:4222';

export const GLOBAL_FLAGS: FlagSpecs = {
  nats: { type: 'string', value: 'URL', help: `NATS server (default $NATS_URL or ${DEFAULT_NATS})` },
  prefix: { type: 'string', value: 'P', help: 'subject prefix of the engine (default $AF_PREFIX or af)' },
  json: { type: 'boolean', help: 'machine-readable JSON on stdout' },
  help: { type: 'boolean', help: 'show help' },
  version: { type: 'boolean', help: 'print the version of actorflow' },
};

/** The version in the package's package.json. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

export const COMMANDS: readonly Command[] = [
  serveCommand, demoCommand, domainsCommand, executionsCommand, describeCommand, historyCommand,
  signalCommand, terminateCommand, machinesCommand, clusterCommand, quarantineCommand, replayCommand, sfnGroupCommand,
];

/** A command by its full name (`history`, `sfn history`). */
const findCommand = (name: string): Command | undefined => [...COMMANDS, ...SFN_COMMANDS].find((c) => c.name === name);

export function generalUsage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'usage: actorflow <command> [options]',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'global options:',
    describeFlags(GLOBAL_FLAGS),
    '',
    'Run "actorflow <command> --help" for the options of a command.',
    'Exit codes: 0 ok, 1 error (an AWS fault prints "ERROR <FaultName>: <message>"), 2 bad usage, 3 replay diverged.',
  ].join('\n');
}

export function commandHelp(c: Command): string {
  return [
    `usage: actorflow ${c.usage} [--nats URL] [--prefix P] [--json]`,
    '',
    `${c.summary[0]!.toUpperCase()}${c.summary.slice(1)}.`,
    ...(c.details ? [c.details] : []),
    ...(Object.keys(c.flags).length ? ['', 'options:', describeFlags(c.flags)] : []),
    '',
    'global options:',
    describeFlags(GLOBAL_FLAGS),
  ].join('\n');
}

/** The index of the command name in argv: the first argument that is neither a flag nor a global flag's value. */
function commandIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-')) return i;
    const name = a.slice(2);
    if (!a.includes('=') && GLOBAL_FLAGS[name]?.type === 'string') i++;
  }
  return -1;
}

/** The process's streams as CliIO. */
export function processIO(): CliIO {
  const tty = process.stderr.isTTY === true;
  let progressShown = false;
  return {
    out: (text) => { process.stdout.write(`${text}\n`); },
    err: (text) => { process.stderr.write(`${text}\n`); },
    progress: (text) => {
      progressShown = true;
      process.stderr.write(tty ? `\r\x1b[K${text}` : `${text}\n`);
    },
    endProgress: () => {
      if (progressShown && tty) process.stderr.write('\r\x1b[K');
      progressShown = false;
    },
    confirm: async (question) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return /^y(es)?$/i.test((await rl.question(question)).trim());
      } finally {
        rl.close();
      }
    },
    stdinIsTTY: process.stdin.isTTY === true,
  };
}

async function connectClient(natsUrl: string, prefix: string): Promise<ActorFlowClient> {
  const [{ connect }, { ActorFlowClient }, { connectionAuth, devUser, natsAuthFromEnv }] = await Promise.all([
    import('@nats-io/transport-node'), import('../sdk/client.js'), import('../nats/connect-options.js')]);
  let nc;
  let auth;
  try {
    // NATS_USER/NATS_PASSWORD (the worker user is enough), NATS_CA/NATS_CERT/NATS_KEY for TLS. Without
    // NATS_USER: nats.conf's worker with its development password, which is what `npm start` runs (a
    // server without auth ignores credentials).
    const env = natsAuthFromEnv();
    auth = connectionAuth(natsUrl, env.user === undefined ? { ...devUser('worker'), ...env } : env);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  try {
    nc = await connect({ servers: natsUrl, name: 'actorflow-cli', timeout: 5000, maxReconnectAttempts: 0, noAsyncTraces: true, ...auth });
  } catch (e) {
    if ((e as Error).name === 'AuthorizationError') {
      throw new CliError(`NATS at ${natsUrl} refused the credentials (${(e as Error).message}): set NATS_USER and NATS_PASSWORD (the worker user of nats.conf)`);
    }
    throw new CliError(unreachable(natsUrl, e));
  }
  return ActorFlowClient.connect({ connection: nc, prefix });
}

function unreachable(natsUrl: string, e: unknown): string {
  return `cannot reach NATS at ${natsUrl} (${e instanceof Error ? e.message : String(e)}): is nats-server running there? Point --nats or NATS_URL at it`;
}

/** Errors of the NATS client: NATS unreachable, or the engine missing or slow. */
function natsRequestError(e: unknown, ctx: { natsUrl: string; prefix: string }): string | undefined {
  if (!(e instanceof Error)) return undefined;
  if (e.name === 'ConnectionError') return unreachable(ctx.natsUrl, e);
  if (e.name === 'RequestError' && /no responders/.test(e.message)) {
    return `no ActorFlow engine answers on ${ctx.natsUrl} with prefix "${ctx.prefix}" (${e.message}): start one with "actorflow serve", or check --prefix`;
  }
  if (e.name === 'TimeoutError') return `the engine did not answer in time on ${ctx.natsUrl} (${e.message})`;
  return undefined;
}

/** Runs the CLI on `argv` (without node and the script); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIO, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let client: ActorFlowClient | undefined;
  const settings = { natsUrl: env.NATS_URL || DEFAULT_NATS, prefix: env.AF_PREFIX || 'af' };
  try {
    const at = commandIndex(argv);
    if (at < 0) {
      const { flags } = parseArgs(argv, GLOBAL_FLAGS, undefined, { checkRequired: false });
      if (flags.help) {
        io.out(generalUsage());
        return 0;
      }
      if (flags.version) {
        io.out(packageVersion());
        return 0;
      }
      throw new UsageError('no command given');
    }
    const name = argv[at]!;
    const rest = [...argv.slice(0, at), ...argv.slice(at + 1)];
    if (name === 'help') {
      const topic = rest.find((a) => !a.startsWith('-'));
      const c = topic === undefined ? undefined : COMMANDS.find((x) => x.name === topic);
      if (topic !== undefined && !c) throw new UsageError(`unknown command ${JSON.stringify(topic)}`);
      io.out(c ? commandHelp(c) : generalUsage());
      return 0;
    }
    let command = COMMANDS.find((c) => c.name === name);
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
    if (command === sfnGroupCommand) {
      // `sfn <command>`: the subcommand is the next argument that is not a flag.
      const sub = commandIndex(rest);
      if (sub < 0) {
        if (rest.includes('--help') || rest.includes('-h')) { io.out(commandHelp(sfnGroupCommand)); return 0; }
        throw new UsageError('no sfn command given', 'sfn');
      }
      command = findCommand(`sfn ${rest[sub]}`);
      if (!command) throw new UsageError(`unknown sfn command ${JSON.stringify(rest[sub])}`, 'sfn');
      rest.splice(sub, 1);
    }
    const specs: FlagSpecs = { ...GLOBAL_FLAGS, ...command.flags };
    const { flags, positionals } = parseArgs(rest, specs, command.name);
    if (flags.help) {
      io.out(commandHelp(command));
      return 0;
    }
    if (!command.positionals && positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`, command.name);
    for (const [flag, value] of Object.entries(flags)) {
      if (value === '') throw new UsageError(`--${flag} must not be empty`, command.name);
    }
    if (typeof flags.nats === 'string') settings.natsUrl = flags.nats;
    if (typeof flags.prefix === 'string') settings.prefix = flags.prefix;
    const ctx: CommandContext = {
      flags, positionals, json: flags.json === true, io,
      natsUrl: settings.natsUrl, natsGiven: typeof flags.nats === 'string',
      prefix: settings.prefix, prefixGiven: typeof flags.prefix === 'string',
      client: async () => (client ??= await connectClient(settings.natsUrl, settings.prefix)),
    };
    return (await command.run(ctx)) ?? 0;
  } catch (e) {
    if (e instanceof UsageError) {
      const c = e.command === undefined ? undefined : findCommand(e.command);
      io.err(`actorflow${c ? ` ${c.name}` : ''}: ${e.message}`);
      io.err(c ? `usage: actorflow ${c.usage}\nRun "actorflow ${c.name} --help" for its options.` : `\n${generalUsage()}`);
      return 2;
    }
    if (e instanceof Fault) {
      io.err(`ERROR ${e.name}: ${e.message}`);
      return 1;
    }
    io.err(`ERROR ${natsRequestError(e, settings) ?? (e instanceof Error ? e.message : String(e))}`);
    return 1;
  } finally {
    await client?.nc.close().catch(() => undefined);
  }
}
