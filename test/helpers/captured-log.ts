import { Writable } from 'node:stream';
import pino from 'pino';

/** A logger whose JSON lines the test reads (`lines()`, parsed, in order). */
export function capturedLogger(level: pino.Level = 'info'): { logger: pino.Logger; lines: () => Record<string, unknown>[] } {
  let text = '';
  const out = new Writable({ write(c: Buffer, _e, cb) { text += c.toString('utf8'); cb(); } });
  return { logger: pino({ level }, out), lines: () => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}
