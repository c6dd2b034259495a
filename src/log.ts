import pino, { type Logger } from 'pino';

/** The one root logger; components take children. Nothing logs inside machines/. */
export function createLogger(level = process.env.AF_LOG_LEVEL ?? 'info'): Logger {
  return pino({ name: 'actorflow', level });
}
