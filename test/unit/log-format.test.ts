import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, type LogOutput } from '../../src/log.js';

/** An output stream that keeps what is written; `isTTY` as a terminal would set it. */
function output(isTTY: boolean): LogOutput & { text(): string } {
  let text = '';
  const w = new Writable({ write(chunk: Buffer, _enc, cb) { text += chunk.toString('utf8'); cb(); } });
  return Object.assign(w, { isTTY, text: () => text });
}

describe('createLogger', () => {
  it('writes readable lines (pino-pretty) to a terminal', () => {
    const out = output(true);
    createLogger('info', out, undefined).child({ c: 'http', requestId: 'req-1' }).info({ n: 1 }, 'engine node started');
    const text = out.text();
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*: .*engine node started/);
    expect(text).toContain('req-1');
    expect(() => JSON.parse(text)).toThrow();
  });

  it('writes one JSON object a line when the output is not a terminal', async () => {
    const out = output(false);
    createLogger('info', out, undefined).child({ requestId: 'req-2' }).info({ n: 2 }, 'engine node started');
    await new Promise((r) => setImmediate(r));
    const line = JSON.parse(out.text().trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ name: 'actorflow', msg: 'engine node started', requestId: 'req-2', n: 2, level: 30 });
  });

  it('AF_LOG_FORMAT=json keeps JSON on a terminal', async () => {
    const out = output(true);
    createLogger('info', out, 'json').info('plain');
    await new Promise((r) => setImmediate(r));
    expect(JSON.parse(out.text().trim())).toMatchObject({ msg: 'plain' });
  });
});
