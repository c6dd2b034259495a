import { str, type FlagSpecs } from '../args.js';
import type { Command } from '../context.js';
import { jsonFlag } from './sfn-runs.js';

const tokenFlag: FlagSpecs = { 'task-token': { type: 'string', value: 'T', help: 'the task token GetActivityTask handed out', required: true } };
/** Task tokens are long: show their start only. */
const short = (token: string) => (token.length > 24 ? `${token.slice(0, 24)}…` : token);

export const sfnSendTaskSuccessCommand: Command = {
  name: 'sfn send-task-success',
  summary: 'complete an activity task with its output',
  usage: 'sfn send-task-success --task-token T --output JSON',
  flags: { ...tokenFlag, output: { type: 'string', value: 'JSON', help: 'the task output, a JSON text', required: true } },
  async run(ctx) {
    const taskToken = str(ctx.flags, 'task-token')!;
    const output = jsonFlag(ctx, 'output', 'sfn send-task-success')!;
    await (await ctx.client()).call('SendTaskSuccess', { taskToken, output });
    ctx.io.out(ctx.json ? JSON.stringify({ sent: 'SendTaskSuccess', taskToken }, null, 2) : `task ${short(taskToken)} succeeded`);
  },
};

export const sfnSendTaskFailureCommand: Command = {
  name: 'sfn send-task-failure',
  summary: 'fail an activity task with an error and cause',
  usage: 'sfn send-task-failure --task-token T [--error E] [--cause C]',
  flags: {
    ...tokenFlag,
    error: { type: 'string', value: 'E', help: 'the error name (Retry and Catch match on it)' },
    cause: { type: 'string', value: 'C', help: 'a longer description' },
  },
  async run(ctx) {
    const taskToken = str(ctx.flags, 'task-token')!;
    await (await ctx.client()).call('SendTaskFailure', { taskToken, error: str(ctx.flags, 'error'), cause: str(ctx.flags, 'cause') });
    ctx.io.out(ctx.json ? JSON.stringify({ sent: 'SendTaskFailure', taskToken }, null, 2) : `task ${short(taskToken)} failed`);
  },
};

export const sfnHeartbeatCommand: Command = {
  name: 'sfn heartbeat',
  summary: "record a heartbeat for an activity task (resets its HeartbeatSeconds clock)",
  usage: 'sfn heartbeat --task-token T',
  flags: tokenFlag,
  async run(ctx) {
    const taskToken = str(ctx.flags, 'task-token')!;
    await (await ctx.client()).call('SendTaskHeartbeat', { taskToken });
    ctx.io.out(ctx.json ? JSON.stringify({ sent: 'SendTaskHeartbeat', taskToken }, null, 2) : `heartbeat recorded for task ${short(taskToken)}`);
  },
};
