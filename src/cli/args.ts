/** A small argv parser for the `actorflow` CLI: `--flag value`, `--flag=value`, boolean `--flag`. */

/** Bad usage: the CLI prints the message and the command's usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command whose usage to print (undefined: the general usage). */
  constructor(message: string, readonly command?: string) {
    super(message);
  }
}

export interface FlagSpec {
  /** `string` flags take a value; `boolean` ones do not. */
  type: 'string' | 'boolean';
  /** Placeholder of the value in the help text, e.g. `URL`. */
  value?: string;
  help: string;
  required?: boolean;
  /** Allowed values of a string flag. */
  oneOf?: readonly string[];
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;
export type Flags = Record<string, string | boolean | undefined>;

export interface Parsed {
  flags: Flags;
  positionals: string[];
}

/**
 * Parses `argv` against `specs` (keys without the leading `--`). Unknown flags, missing values,
 * values outside `oneOf` and missing required flags raise a UsageError. `--` ends the flags.
 */
export function parseArgs(argv: readonly string[], specs: FlagSpecs, command?: string, opts: { checkRequired?: boolean } = {}): Parsed {
  const flags: Flags = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h') {
      flags.help = true;
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      if (arg.startsWith('-') && arg.length > 1) throw new UsageError(`unknown option ${arg}`, command);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = Object.hasOwn(specs, name) ? specs[name]! : undefined;
    if (!spec) throw new UsageError(`unknown option --${name}`, command);
    if (spec.type === 'boolean') {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`, command);
      flags[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) value = argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value${spec.value ? ` (${spec.value})` : ''}`, command);
    if (spec.oneOf && !spec.oneOf.includes(value)) {
      throw new UsageError(`--${name} must be one of ${spec.oneOf.join(', ')}, got ${JSON.stringify(value)}`, command);
    }
    flags[name] = value;
  }
  if (opts.checkRequired !== false && !flags.help) {
    for (const [name, spec] of Object.entries(specs)) {
      if (spec.required && flags[name] === undefined) throw new UsageError(`missing required option --${name}`, command);
    }
  }
  return { flags, positionals };
}

/** The option lines of a help text, aligned. */
export function describeFlags(specs: FlagSpecs): string {
  const rows = Object.entries(specs).map(([name, s]) => {
    const left = `--${name}${s.type === 'string' ? ` ${s.value ?? 'VALUE'}` : ''}`;
    const oneOf = s.oneOf ? ` (${s.oneOf.join('|')})` : '';
    return [left, `${s.help}${oneOf}${s.required ? ' [required]' : ''}`] as const;
  });
  const width = Math.max(0, ...rows.map(([l]) => l.length));
  return rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`).join('\n');
}

/** A string flag's value (after parseArgs checked it is a string when present). */
export function str(flags: Flags, name: string): string | undefined {
  const v = flags[name];
  return typeof v === 'string' ? v : undefined;
}

/** A positive integer flag, or undefined when absent. */
export function positiveInt(flags: Flags, name: string, command: string): number | undefined {
  const v = str(flags, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1 || !Number.isSafeInteger(Number(v))) {
    throw new UsageError(`--${name} must be a positive integer, got ${JSON.stringify(v)}`, command);
  }
  return Number(v);
}
