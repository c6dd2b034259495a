import type { ActorFlowClient } from '../sdk/client.js';
import type { Flags, FlagSpecs } from './args.js';

/** A failure the CLI reports as `ERROR <message>` with exit code 1 (not an AWS fault). */
export class CliError extends Error {
  override readonly name = 'CliError';
}

/** Where a command writes; the CLI's entry point binds it to the process streams. */
export interface CliIO {
  /** A line (or lines) on stdout. */
  out(text: string): void;
  /** A line on stderr. */
  err(text: string): void;
  /** A progress line on stderr, rewritten in place on a terminal; endProgress() ends it. */
  progress(text: string): void;
  endProgress(): void;
  /** Asks a yes/no question on the terminal; only called when stdinIsTTY. */
  confirm(question: string): Promise<boolean>;
  stdinIsTTY: boolean;
}

export interface CommandContext {
  /** The command's and the global flags. */
  flags: Flags;
  /** Positional arguments after the command name (e.g. `export` of `machines export`). */
  positionals: string[];
  json: boolean;
  io: CliIO;
  /** From --nats, else $NATS_URL, else nats://127.0.0.1:4222. */
  natsUrl: string;
  /** Whether --nats was given (serve and demo start an embedded nats-server otherwise, unless $NATS_URL is set). */
  natsGiven: boolean;
  /** From --prefix, else $AF_PREFIX, else `af`. */
  prefix: string;
  prefixGiven: boolean;
  /** The client, connected on first use and closed when the command ends. */
  client(): Promise<ActorFlowClient>;
}

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The synopsis after `actorflow`, e.g. `describe --domain D --workflow-id W [--run-id R]`. */
  usage: string;
  flags: FlagSpecs;
  /** Takes positional arguments (a subcommand); other commands refuse them. */
  positionals?: boolean;
  /** More text for `--help`. */
  details?: string;
  /** Resolves to the exit code (default 0). */
  run(ctx: CommandContext): Promise<number | void>;
}
