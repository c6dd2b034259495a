import type { Command } from '../context.js';
import { sfnExecutionsCommand, sfnStateMachinesCommand } from './sfn-lists.js';
import { sfnDescribeCommand, sfnHistoryCommand, sfnStartCommand, sfnStopCommand } from './sfn-runs.js';
import { sfnHeartbeatCommand, sfnSendTaskFailureCommand, sfnSendTaskSuccessCommand } from './sfn-tasks.js';
import { sfnAliasesCommand, sfnVersionsCommand } from './sfn-versions.js';

/** `actorflow sfn <command>`: the Step Functions commands, named `sfn <command>`. */
export const SFN_COMMANDS: readonly Command[] = [
  sfnStateMachinesCommand, sfnExecutionsCommand, sfnDescribeCommand, sfnHistoryCommand, sfnStartCommand, sfnStopCommand,
  sfnSendTaskSuccessCommand, sfnSendTaskFailureCommand, sfnHeartbeatCommand, sfnVersionsCommand, sfnAliasesCommand,
];

/** The group's own entry in the command list; run without a known subcommand it is bad usage (the CLI prints the group's usage). */
export const sfnGroupCommand: Command = {
  name: 'sfn',
  summary: `Step Functions: ${SFN_COMMANDS.map((c) => c.name.slice(4)).join(', ')}`,
  usage: 'sfn <command> [options]',
  flags: {},
  positionals: true,
  details: ['', 'commands:', ...(() => {
    const width = Math.max(...SFN_COMMANDS.map((c) => c.name.length - 4));
    return SFN_COMMANDS.map((c) => `  ${c.name.slice(4).padEnd(width)}  ${c.summary}`);
  })(), '', 'Run "actorflow sfn <command> --help" for the options of a command.'].join('\n'),
  run() {
    throw new Error('unreachable: the CLI dispatches sfn subcommands');
  },
};
