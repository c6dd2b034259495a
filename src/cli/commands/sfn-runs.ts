import { UsageError, positiveInt, str, type FlagSpecs } from '../args.js';
import type { Command, CommandContext } from '../context.js';
import { isoTime, keyValues } from '../format.js';
import { formatSfnTimeline, timelineLine, type SfnHistoryEvent } from '../sfn-timeline.js';
import { stateMachineArn, stateMachineFlag } from './sfn-lists.js';

const executionFlag: FlagSpecs = { execution: { type: 'string', value: 'ARN', help: 'the execution ARN', required: true } };

interface Execution {
  executionArn: string; stateMachineArn: string; name: string; status: string; startDate: number; stopDate?: number;
  input?: string; output?: string; error?: string; cause?: string; redriveStatus?: string;
}

/** --input (or --output) as JSON text, checked here so a typo is a usage error, not a round trip. */
export function jsonFlag(ctx: CommandContext, flag: string, command: string): string | undefined {
  const v = str(ctx.flags, flag);
  if (v === undefined) return undefined;
  try {
    JSON.parse(v);
  } catch (e) {
    throw new UsageError(`--${flag} must be JSON (${(e as Error).message}); quote a string as '"text"'`, command);
  }
  return v;
}

async function describe(ctx: CommandContext, executionArn: string): Promise<Execution> {
  return (await ctx.client()).call<Execution>('DescribeExecution', { executionArn });
}

function describeText(d: Execution): string {
  return keyValues([
    ['name', d.name], ['executionArn', d.executionArn], ['stateMachine', d.stateMachineArn], ['status', d.status],
    ['started', isoTime(d.startDate)], ['stopped', d.stopDate === undefined ? undefined : isoTime(d.stopDate)],
    ['input', d.input], ['output', d.output], ['error', d.error], ['cause', d.cause],
  ]);
}

/** Every event of the history after event `after`, page by page. */
async function historyAfter(ctx: CommandContext, executionArn: string, after = 0): Promise<SfnHistoryEvent[]> {
  const client = await ctx.client();
  const out: SfnHistoryEvent[] = [];
  let nextToken: string | undefined;
  do {
    const page = await client.call<{ events: SfnHistoryEvent[]; nextToken?: string }>('GetExecutionHistory', { executionArn, maxResults: 1000, nextToken });
    out.push(...page.events.filter((e) => e.id > after));
    nextToken = page.nextToken;
  } while (nextToken);
  return out;
}

export const sfnDescribeCommand: Command = {
  name: 'sfn describe',
  summary: 'describe a Step Functions execution (or, with --state-machine, a state machine)',
  usage: 'sfn describe --execution ARN | --state-machine ARN|NAME',
  flags: {
    execution: { type: 'string', value: 'ARN', help: 'the execution ARN' },
    'state-machine': { type: 'string', value: 'ARN|NAME', help: 'a state machine instead (its definition, role, type)' },
  },
  async run(ctx) {
    const executionArn = str(ctx.flags, 'execution');
    const machine = str(ctx.flags, 'state-machine');
    if ((executionArn === undefined) === (machine === undefined)) throw new UsageError('give one of --execution and --state-machine', 'sfn describe');
    if (executionArn !== undefined) {
      const d = await describe(ctx, executionArn);
      return ctx.io.out(ctx.json ? JSON.stringify(d, null, 2) : describeText(d));
    }
    const d = await (await ctx.client()).call<{ name: string; stateMachineArn: string; type: string; status?: string; roleArn: string; creationDate: number; definition: string }>(
      'DescribeStateMachine', { stateMachineArn: await stateMachineArn(ctx) });
    if (ctx.json) return ctx.io.out(JSON.stringify(d, null, 2));
    ctx.io.out(keyValues([['name', d.name], ['stateMachineArn', d.stateMachineArn], ['type', d.type], ['status', d.status], ['role', d.roleArn], ['created', isoTime(d.creationDate)]]));
    ctx.io.out(JSON.stringify(JSON.parse(d.definition), null, 2));
  },
};

export const sfnHistoryCommand: Command = {
  name: 'sfn history',
  summary: 'print the history of a Step Functions execution as a timeline',
  usage: 'sfn history --execution ARN',
  flags: executionFlag,
  details: 'Each line: event id, time since the first event, event type, key details (state name, error, input, output).',
  async run(ctx) {
    const executionArn = str(ctx.flags, 'execution')!;
    const d = await describe(ctx, executionArn);
    const events = await historyAfter(ctx, executionArn);
    if (ctx.json) return ctx.io.out(JSON.stringify({ executionArn, status: d.status, events }, null, 2));
    ctx.io.out(`history of ${d.name} (${d.status}): ${events.length} events, started ${isoTime(d.startDate)}`);
    ctx.io.out(formatSfnTimeline(events));
  },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const sfnStartCommand: Command = {
  name: 'sfn start',
  summary: 'start an execution of a state machine (--wait: follow it to its end)',
  usage: 'sfn start --state-machine ARN|NAME [--name N] [--input JSON] [--wait [--timeout S]]',
  flags: {
    ...stateMachineFlag,
    name: { type: 'string', value: 'N', help: 'the execution name (default: a UUID)' },
    input: { type: 'string', value: 'JSON', help: 'the execution input, a JSON text (default {})' },
    wait: { type: 'boolean', help: 'follow the execution, printing its history as it grows, until it ends' },
    timeout: { type: 'string', value: 'S', help: 'with --wait: give up after S seconds (exit 1; the execution goes on)' },
  },
  details: 'With --wait the exit code is 0 when the execution SUCCEEDED and 1 when it FAILED, TIMED_OUT or was ABORTED.',
  async run(ctx) {
    const input = jsonFlag(ctx, 'input', 'sfn start');
    const timeoutS = positiveInt(ctx.flags, 'timeout', 'sfn start');
    if (timeoutS !== undefined && !ctx.flags.wait) throw new UsageError('--timeout goes with --wait', 'sfn start');
    const arn = await stateMachineArn(ctx);
    const client = await ctx.client();
    const started = await client.call<{ executionArn: string; startDate: number }>('StartExecution', { stateMachineArn: arn, name: str(ctx.flags, 'name'), input });
    if (!ctx.flags.wait) {
      if (ctx.json) return ctx.io.out(JSON.stringify(started, null, 2));
      return ctx.io.out(`started ${started.executionArn}`);
    }
    if (!ctx.json) ctx.io.out(`started ${started.executionArn}`);
    const deadline = timeoutS === undefined ? Infinity : Date.now() + timeoutS * 1000;
    const events: SfnHistoryEvent[] = [];
    for (;;) {
      const d = await describe(ctx, started.executionArn);
      const fresh = await historyAfter(ctx, started.executionArn, events.at(-1)?.id ?? 0);
      const t0 = events[0]?.timestamp ?? fresh[0]?.timestamp ?? 0;
      events.push(...fresh);
      if (!ctx.json) for (const e of fresh) ctx.io.out(timelineLine(e, t0));
      if (d.status !== 'RUNNING') {
        if (ctx.json) ctx.io.out(JSON.stringify({ ...d, events }, null, 2));
        else ctx.io.out(`${d.status}${d.output !== undefined ? ` output=${d.output}` : ''}${d.error !== undefined ? ` error=${d.error}` : ''}${d.cause ? ` cause=${d.cause}` : ''}`);
        return d.status === 'SUCCEEDED' ? 0 : 1;
      }
      if (Date.now() >= deadline) {
        ctx.io.err(`ERROR the execution is still RUNNING after ${timeoutS} s (it goes on): ${started.executionArn}`);
        return 1;
      }
      await sleep(250);
    }
  },
};

export const sfnStopCommand: Command = {
  name: 'sfn stop',
  summary: 'stop a running Step Functions execution (it ends ABORTED)',
  usage: 'sfn stop --execution ARN [--error E] [--cause C] [--yes]',
  flags: {
    ...executionFlag,
    error: { type: 'string', value: 'E', help: 'the error recorded in ExecutionAborted' },
    cause: { type: 'string', value: 'C', help: 'the cause recorded in ExecutionAborted' },
    yes: { type: 'boolean', help: 'do not ask for confirmation (needed when stdin is not a terminal)' },
  },
  async run(ctx) {
    const executionArn = str(ctx.flags, 'execution')!;
    if (!ctx.flags.yes) {
      if (!ctx.io.stdinIsTTY) throw new UsageError('stop asks for confirmation: pass --yes when stdin is not a terminal', 'sfn stop');
      if (!(await ctx.io.confirm(`stop ${executionArn}? [y/N] `))) {
        ctx.io.err('not stopped');
        return 1;
      }
    }
    const out = await (await ctx.client()).call<{ stopDate: number }>('StopExecution', { executionArn, error: str(ctx.flags, 'error'), cause: str(ctx.flags, 'cause') });
    if (ctx.json) return ctx.io.out(JSON.stringify({ stopped: true, executionArn, ...out }, null, 2));
    ctx.io.out(`stopped ${executionArn} at ${isoTime(out.stopDate)}`);
  },
};
