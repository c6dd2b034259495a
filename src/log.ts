import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';

type PrettyFactory = (opts: Record<string, unknown>) => DestinationStream;

/** pino-pretty when it is installed (a dependency, yet a slim deployment may leave it out). */
function prettyFactory(): PrettyFactory | undefined {
  try {
    const mod = createRequire(import.meta.url)('pino-pretty') as PrettyFactory | { default: PrettyFactory };
    return typeof mod === 'function' ? mod : mod.default;
  } catch {
    return undefined;
  }
}

/** Where the logs go: stdout by default; on a terminal (`isTTY`) they are pretty-printed. */
export type LogOutput = NodeJS.WritableStream & { isTTY?: boolean; fd?: number };

/**
 * The one root logger; components take children. Nothing logs inside machines/. JSON lines, one
 * per entry, unless the output is a terminal and pino-pretty resolves (AF_LOG_FORMAT=json|pretty
 * overrides the choice).
 */
export function createLogger(level = process.env.AF_LOG_LEVEL ?? 'info', out: LogOutput = process.stdout,
  format = process.env.AF_LOG_FORMAT): Logger {
  const opts = { name: 'actorflow', level };
  const wantPretty = format === 'pretty' || (format !== 'json' && out.isTTY === true);
  const pretty = wantPretty ? prettyFactory() : undefined;
  if (pretty) {
    return pino(opts, pretty({
      destination: out, colorize: out.isTTY === true, sync: true,
      translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,name', singleLine: true,
    }));
  }
  return out === process.stdout ? pino(opts) : pino(opts, out);
}
