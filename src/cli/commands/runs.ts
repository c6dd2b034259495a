import { Fault } from '../../protocol/faults.js';
import { UsageError, str, type FlagSpecs } from '../args.js';
import type { Command, CommandContext } from '../context.js';
import { isoTime, keyValues } from '../format.js';
import type { ExecutionInfo } from './lists.js';

const runFlags: FlagSpecs = {
  domain: { type: 'string', value: 'D', help: 'the domain', required: true },
  'workflow-id': { type: 'string', value: 'W', help: 'the workflow id', required: true },
  'run-id': { type: 'string', value: 'R', help: 'the run (default: the open run, else the latest closed one)' },
};

/**
 * The run a command names: --run-id, else the open run of the workflow id (ListOpen with an
 * executionFilter), else its most recent closed run; UnknownResourceFault when there is none.
 */
export async function resolveRun(ctx: CommandContext): Promise<{ domain: string; workflowId: string; runId: string }> {
  const domain = str(ctx.flags, 'domain')!;
  const workflowId = str(ctx.flags, 'workflow-id')!;
  const runId = str(ctx.flags, 'run-id');
  if (runId !== undefined) return { domain, workflowId, runId };
  const client = await ctx.client();
  const query = { domain, startTimeFilter: { oldestDate: 0 }, executionFilter: { workflowId }, maximumPageSize: 1 };
  const open = await client.call<{ executionInfos: ExecutionInfo[] }>('ListOpenWorkflowExecutions', query);
  const found = open.executionInfos[0] ?? (await client.call<{ executionInfos: ExecutionInfo[] }>('ListClosedWorkflowExecutions', query)).executionInfos[0];
  if (!found) throw new Fault('UnknownResourceFault', `Unknown execution: no run of workflowId=${workflowId} in domain ${domain}`);
  return { domain, workflowId, runId: found.execution.runId };
}

interface Description {
  executionInfo: ExecutionInfo & { parent?: { workflowId: string; runId: string } };
  executionConfiguration: {
    taskStartToCloseTimeout?: string; executionStartToCloseTimeout?: string; taskList?: { name: string };
    taskPriority?: string; childPolicy?: string; lambdaRole?: string;
  };
  openCounts: Record<string, number>;
  latestActivityTaskTimestamp?: number;
  latestExecutionContext?: string;
}

export const describeCommand: Command = {
  name: 'describe',
  summary: 'describe one workflow execution',
  usage: 'describe --domain D --workflow-id W [--run-id R]',
  flags: runFlags,
  async run(ctx) {
    const run = await resolveRun(ctx);
    const client = await ctx.client();
    const d = await client.call<Description>('DescribeWorkflowExecution', { domain: run.domain, execution: { workflowId: run.workflowId, runId: run.runId } });
    if (ctx.json) return ctx.io.out(JSON.stringify(d, null, 2));
    const i = d.executionInfo;
    const c = d.executionConfiguration;
    const seconds = (v: string | undefined) => (v === undefined ? '-' : v === 'NONE' ? 'NONE' : `${v} s`);
    ctx.io.out(keyValues([
      ['domain', run.domain],
      ['workflowId', i.execution.workflowId],
      ['runId', i.execution.runId],
      ['type', `${i.workflowType.name} ${i.workflowType.version}`],
      ['status', i.executionStatus === 'OPEN' ? `OPEN${i.cancelRequested ? ' (cancel requested)' : ''}` : `CLOSED ${i.closeStatus ?? ''}`.trim()],
      ['started', isoTime(i.startTimestamp)],
      ['closed', i.closeTimestamp === undefined ? undefined : isoTime(i.closeTimestamp)],
      ['tags', i.tagList?.length ? i.tagList.join(', ') : undefined],
      ['parent', i.parent ? `${i.parent.workflowId} (run ${i.parent.runId})` : undefined],
      ['taskList', c.taskList?.name],
      ['taskPriority', c.taskPriority],
      ['childPolicy', c.childPolicy],
      ['timeouts', `execution ${seconds(c.executionStartToCloseTimeout)}, decision task ${seconds(c.taskStartToCloseTimeout)}`],
      ['open', `${d.openCounts.openActivityTasks ?? 0} activity tasks, ${d.openCounts.openDecisionTasks ?? 0} decision tasks, `
        + `${d.openCounts.openTimers ?? 0} timers, ${d.openCounts.openChildWorkflowExecutions ?? 0} child executions`],
      ['latestActivity', d.latestActivityTaskTimestamp === undefined ? undefined : isoTime(d.latestActivityTaskTimestamp)],
      ['latestContext', d.latestExecutionContext],
    ]));
  },
};

export const historyCommand: Command = {
  name: 'history',
  summary: 'print the history of a workflow execution as a timeline',
  usage: 'history --domain D --workflow-id W [--run-id R]',
  flags: runFlags,
  details: 'Each line: event id, time since the first event, event type, key attributes.',
  async run(ctx) {
    const run = await resolveRun(ctx);
    const client = await ctx.client();
    const events = await client.history(run.domain, { workflowId: run.workflowId, runId: run.runId });
    if (ctx.json) return ctx.io.out(JSON.stringify({ domain: run.domain, execution: { workflowId: run.workflowId, runId: run.runId }, events }, null, 2));
    ctx.io.out(`history of ${run.workflowId} (run ${run.runId}) in ${run.domain}: ${events.length} events, started ${isoTime(events[0]?.eventTimestamp)}`);
    const { formatTimeline } = await import('../../demo/order-fulfilment.js');
    ctx.io.out(formatTimeline(events));
  },
};

export const signalCommand: Command = {
  name: 'signal',
  summary: 'send a signal to an open workflow execution',
  usage: 'signal --domain D --workflow-id W --name S [--input JSON] [--run-id R]',
  flags: {
    ...runFlags,
    'run-id': { type: 'string', value: 'R', help: 'the run (default: the open run)' },
    name: { type: 'string', value: 'S', help: 'the signal name', required: true },
    input: { type: 'string', value: 'JSON', help: 'the signal input, a JSON text' },
  },
  async run(ctx) {
    const input = str(ctx.flags, 'input');
    if (input !== undefined) {
      try {
        JSON.parse(input);
      } catch (e) {
        throw new UsageError(`--input must be JSON (${(e as Error).message}); quote a string as '"text"'`, 'signal');
      }
    }
    const target = { domain: str(ctx.flags, 'domain')!, workflowId: str(ctx.flags, 'workflow-id')!, runId: str(ctx.flags, 'run-id') };
    const signalName = str(ctx.flags, 'name')!;
    const client = await ctx.client();
    await client.call('SignalWorkflowExecution', { ...target, signalName, input });
    if (ctx.json) return ctx.io.out(JSON.stringify({ signaled: true, ...target, signalName }, null, 2));
    ctx.io.out(`signaled ${target.workflowId}${target.runId ? ` (run ${target.runId})` : ''} in ${target.domain}: ${signalName}`);
  },
};

export const terminateCommand: Command = {
  name: 'terminate',
  summary: 'terminate an open workflow execution',
  usage: 'terminate --domain D --workflow-id W [--run-id R] [--reason R] [--details TEXT] [--child-policy P] [--yes]',
  flags: {
    ...runFlags,
    'run-id': { type: 'string', value: 'R', help: 'the run (default: the open run)' },
    reason: { type: 'string', value: 'R', help: 'the reason recorded in WorkflowExecutionTerminated' },
    details: { type: 'string', value: 'TEXT', help: 'details recorded in WorkflowExecutionTerminated' },
    'child-policy': { type: 'string', value: 'P', help: "what happens to child executions (default: the run's)", oneOf: ['TERMINATE', 'REQUEST_CANCEL', 'ABANDON'] },
    yes: { type: 'boolean', help: 'do not ask for confirmation (needed when stdin is not a terminal)' },
  },
  async run(ctx) {
    const target = { domain: str(ctx.flags, 'domain')!, workflowId: str(ctx.flags, 'workflow-id')!, runId: str(ctx.flags, 'run-id') };
    const what = `${target.workflowId}${target.runId ? ` (run ${target.runId})` : ''} in ${target.domain}`;
    if (!ctx.flags.yes) {
      if (!ctx.io.stdinIsTTY) throw new UsageError('terminate asks for confirmation: pass --yes when stdin is not a terminal', 'terminate');
      if (!(await ctx.io.confirm(`terminate ${what}? [y/N] `))) {
        ctx.io.err('not terminated');
        return 1;
      }
    }
    const client = await ctx.client();
    await client.call('TerminateWorkflowExecution', {
      ...target, reason: str(ctx.flags, 'reason'), details: str(ctx.flags, 'details'), childPolicy: str(ctx.flags, 'child-policy'),
    });
    if (ctx.json) return ctx.io.out(JSON.stringify({ terminated: true, ...target }, null, 2));
    ctx.io.out(`terminated ${what}`);
  },
};
