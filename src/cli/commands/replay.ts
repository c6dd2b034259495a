import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WireEvent } from '../../sdk/client.js';
import { replayHistory } from '../../workflow/replay.js';
import type { WorkflowDefinition } from '../../workflow/define.js';
import { attrs } from '../../workflow/history-index.js';
import { UsageError, str } from '../args.js';
import { CliError, type Command } from '../context.js';
import { resolveRun } from './runs.js';

/** Every workflow definition a module exports (defineWorkflow's results), by name and version. */
async function workflowsIn(file: string): Promise<WorkflowDefinition[]> {
  let mod: Record<string, unknown>;
  try {
    mod = await import(pathToFileURL(resolve(file)).href) as Record<string, unknown>;
  } catch (e) {
    throw new CliError(`cannot load ${file}: ${(e as Error).message}`);
  }
  return Object.values(mod).filter((v): v is WorkflowDefinition => typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'workflow');
}

async function historyFrom(file: string): Promise<WireEvent[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new CliError(`cannot read the history ${file}: ${(e as Error).message}`);
  }
  const events = Array.isArray(parsed) ? parsed : (parsed as { events?: unknown }).events;
  if (!Array.isArray(events) || events.length === 0) throw new CliError(`${file} holds no events (expected GetWorkflowExecutionHistory's output or an array of events)`);
  return events as WireEvent[];
}

export const replayCommand: Command = {
  name: 'replay',
  summary: 'replay recorded histories through workflow code and report where they diverge',
  usage: 'replay --workflow FILE (--history FILE | --domain D --workflow-id W [--run-id R]) [--name N]',
  flags: {
    workflow: { type: 'string', value: 'FILE', help: 'a module exporting the workflow (defineWorkflow)', required: true },
    history: { type: 'string', value: 'FILE', help: 'a saved history (aws swf get-workflow-execution-history output, or `actorflow history --json`)' },
    domain: { type: 'string', value: 'D', help: 'read the history from the engine: the domain' },
    'workflow-id': { type: 'string', value: 'W', help: 'the workflow id' },
    'run-id': { type: 'string', value: 'R', help: 'the run (default: the open run, else the latest closed one)' },
    name: { type: 'string', value: 'N', help: 'the workflow type to use (default: the history\'s)' },
  },
  details: 'Exit codes: 0 the code makes the recorded decisions, 3 it diverges (the first divergence is printed).',
  async run(ctx) {
    const historyFile = str(ctx.flags, 'history');
    const fromEngine = str(ctx.flags, 'domain') !== undefined || str(ctx.flags, 'workflow-id') !== undefined;
    if ((historyFile === undefined) === !fromEngine) throw new UsageError('give either --history FILE or --domain D --workflow-id W', 'replay');
    if (fromEngine && (str(ctx.flags, 'domain') === undefined || str(ctx.flags, 'workflow-id') === undefined)) throw new UsageError('--domain and --workflow-id go together', 'replay');
    const events = historyFile !== undefined ? await historyFrom(historyFile) : await (async () => {
      const run = await resolveRun(ctx);
      return (await ctx.client()).history(run.domain, { workflowId: run.workflowId, runId: run.runId });
    })();
    const type = attrs(events[0]!).workflowType as { name: string; version: string } | undefined;
    const name = str(ctx.flags, 'name') ?? type?.name;
    const defs = await workflowsIn(str(ctx.flags, 'workflow')!);
    const def = defs.find((d) => d.name === name && (str(ctx.flags, 'name') !== undefined || d.version === type?.version)) ?? defs.find((d) => d.name === name);
    if (!def) throw new CliError(`no workflow ${name ?? '(unnamed)'} exported by ${str(ctx.flags, 'workflow')} (it exports: ${defs.map((d) => `${d.name} ${d.version}`).join(', ') || 'none'})`);
    const r = await replayHistory(def, events);
    if (ctx.json) ctx.io.out(JSON.stringify({ workflow: { name: def.name, version: def.version }, events: events.length, ok: !r.divergence, ...(r.divergence ? { divergence: r.divergence } : {}), decisions: r.decisions }, null, 2));
    else if (r.divergence) ctx.io.out(`DIVERGED ${def.name} ${def.version} after replaying ${events.length} events: ${r.divergence.message}`);
    else ctx.io.out(`OK ${def.name} ${def.version}: ${events.length} events replayed, the code makes the recorded decisions${r.decisions.length ? ` (and would decide ${r.decisions.length} more now)` : ''}`);
    return r.divergence ? 3 : 0;
  },
};
