import { join, resolve } from 'node:path';
import { packageRoot } from '../../nats/package-root.js';
import { UsageError, str } from '../args.js';
import type { Command, CommandContext } from '../context.js';

/** The repository root: the embedded nats-server reads nats.conf and keeps its store in .data/ there. */
const ROOT = packageRoot();

/**
 * Where the embedded server of a command run in `cwd` keeps its store (AF_NATS_STORE_DIR), or
 * undefined for nats.conf's own `.data/jetstream` under the package root. The server runs from the
 * package root (it reads nats.conf there), but the store stays where the command was run: an
 * installed package's root is inside node_modules, which the next `npm ci` deletes, history and all.
 * A relative AF_NATS_STORE_DIR means the same folder as it did in `cwd`.
 */
export function embeddedStoreDir(cwd: string, root: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env.AF_NATS_STORE_DIR) return resolve(cwd, env.AF_NATS_STORE_DIR);
  return resolve(cwd) === resolve(root) ? undefined : join(resolve(cwd), '.data', 'jetstream');
}

/**
 * serve and demo run src/serve.ts and src/main.ts in this process. They read NATS_URL and
 * AF_PREFIX, so --nats and --prefix become those; without NATS_URL they start the embedded
 * nats-server from the repository root, as `npm start` does, with its store in the cwd.
 */
function engineEnv(ctx: CommandContext): void {
  if (ctx.natsGiven) process.env.NATS_URL = ctx.natsUrl;
  if (ctx.prefixGiven) process.env.AF_PREFIX = ctx.prefix;
  if (process.env.NATS_URL) return;
  const store = embeddedStoreDir(process.cwd(), ROOT, process.env);
  if (store) process.env.AF_NATS_STORE_DIR = store;
  process.chdir(ROOT);
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run an engine node (with the AWS JSON 1.0 HTTP gateway) until SIGINT/SIGTERM',
  usage: 'serve [--nats URL] [--http-host H] [--http-port N] [--inspect] [--inspect-port N]',
  flags: {
    'http-host': { type: 'string', value: 'H', help: 'HTTP gateway host (default $AF_HTTP_HOST or 127.0.0.1)' },
    'http-port': { type: 'string', value: 'N', help: 'HTTP gateway port, 0 = a free one (default $AF_HTTP_PORT or 8080)' },
    inspect: { type: 'boolean', help: 'serve the XState inspector bridge (or AF_INSPECT=1)' },
    'inspect-port': { type: 'string', value: 'N', help: 'inspector port (default $AF_INSPECT_PORT or 8081); implies --inspect' },
  },
  details: 'Joins the NATS at --nats or $NATS_URL; with neither, runs the embedded nats-server (nats.conf; its store in .data/jetstream of the\n'
    + 'current folder, or $AF_NATS_STORE_DIR).\n'
    + 'Prints {"ready":true,…} once it serves. Environment: AF_PARTITIONS, AF_PREFIX, AF_LOG_LEVEL, AF_ACCESS_KEYS, AF_ACCESS_KEYS_FILE,\n'
    + 'NATS_USER/NATS_PASSWORD (the engine user of nats.conf) and NATS_CA/NATS_CERT/NATS_KEY for TLS with --nats/$NATS_URL.',
  async run(ctx) {
    engineEnv(ctx);
    const argv: string[] = [];
    const host = str(ctx.flags, 'http-host');
    const port = str(ctx.flags, 'http-port');
    if (host !== undefined) argv.push('--http-host', host);
    if (port !== undefined) {
      if (!/^\d+$/.test(port) || Number(port) > 65_535) throw new UsageError(`--http-port must be a port number from 0 to 65535, got ${JSON.stringify(port)}`, 'serve');
      argv.push('--http-port', port);
    }
    // src/serve.ts reads these from its argv.
    if (ctx.flags.inspect) argv.push('--inspect');
    const inspectPort = str(ctx.flags, 'inspect-port');
    if (inspectPort !== undefined) argv.push('--inspect-port', inspectPort);
    const { serve } = await import('../../serve.js');
    await serve(argv);
    return 0;
  },
};

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run the order-fulfilment demo once and print its history (like npm run demo)',
  usage: 'demo [--nats URL]',
  flags: {},
  details: 'Starts an engine node on --nats or $NATS_URL (else on the embedded nats-server), runs one order workflow,\n'
    + 'prints its timeline and exits 0 when it completed.',
  async run(ctx) {
    engineEnv(ctx);
    const { main } = await import('../../main.js');
    return main(['--demo-only']);
  },
};

export const machinesCommand: Command = {
  name: 'machines',
  summary: 'export the XState machines as JSON and Mermaid diagrams',
  usage: 'machines export [--out DIR | --definition FILE]',
  positionals: true,
  flags: {
    out: { type: 'string', value: 'DIR', help: 'where to write (default ./machines-export)' },
    definition: { type: 'string', value: 'FILE', help: 'print the XState JSON compiled from this States Language definition instead' },
  },
  details: 'Writes <machine>.json (machine.toJSON()) and <machine>.mmd (Mermaid stateDiagram-v2, delayed transitions\n'
    + 'labelled "after <delay>") for workflow-execution, decision-task, activity-task and timer.',
  async run(ctx) {
    const [sub, ...rest] = ctx.positionals;
    if (sub !== 'export') throw new UsageError(sub === undefined ? 'machines needs a subcommand: export' : `unknown machines subcommand ${JSON.stringify(sub)} (expected export)`, 'machines');
    if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`, 'machines');
    const definition = str(ctx.flags, 'definition');
    if (definition !== undefined) {
      const { compiledDefinitionJson } = await import('../sfn-machine-export.js');
      ctx.io.out((await compiledDefinitionJson(definition)).trimEnd());
      return;
    }
    const { exportMachines } = await import('../machines-export.js');
    const files = await exportMachines(str(ctx.flags, 'out') ?? 'machines-export');
    if (ctx.json) return ctx.io.out(JSON.stringify({ files }, null, 2));
    for (const f of files) ctx.io.out(`wrote ${f}`);
  },
};
