import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TaskTokens } from '../../src/engine/task-token.js';

const ref = { domain: 'd', workflowId: 'w', runId: 'r', kind: 'a' as const, scheduledEventId: 5, startedEventId: 6 };

describe('task tokens a node sealed itself', () => {
  const key = randomBytes(32);

  it('open as they would through their MAC, on this node and on another with the same key', () => {
    const here = new TaskTokens(key);
    const token = here.encodeTaskToken(ref);
    expect(here.decodeTaskToken(token, 'a')).toEqual(ref);
    expect(new TaskTokens(key).decodeTaskToken(token, 'a')).toEqual(ref);
    expect(here.open('swf', token)).toEqual(new TaskTokens(key).open('swf', token));
  });

  it('are still refused for another purpose, altered, or under another key', () => {
    const here = new TaskTokens(key);
    const token = here.encodeTaskToken(ref);
    expect(here.open('sfn', token)).toEqual({ refused: 'forged' });
    const raw = Buffer.from(token, 'base64url');
    raw[raw.length - 1] ^= 1;
    expect(here.open('swf', raw.toString('base64url'))).toEqual({ refused: 'forged' });
    expect(new TaskTokens(randomBytes(32)).open('swf', token)).toEqual({ refused: 'forged' });
  });

  it('open only as sealed: a trailing character that makes no byte, or other unused bits, is no token', () => {
    const here = new TaskTokens(key);
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const flipLowBit = (c: string) => ALPHABET[ALPHABET.indexOf(c) ^ 1]!;
    // Three payload lengths in a row give every length of token modulo 4 that base64 makes.
    const tokens = [0, 1, 2].map((n) => here.encodeTaskToken({ ...ref, workflowId: 'w'.repeat(n + 1) }));
    const whole = tokens.find((t) => t.length % 4 === 0)!;   // each character carries whole bytes
    const partial = tokens.find((t) => t.length % 4 === 2)!; // its last character has four unused bits
    for (const [original, altered] of [[whole, `${whole}A`], [partial, partial.slice(0, -1) + flipLowBit(partial.at(-1)!)]] as const) {
      // The decoder reads both as the original's bytes.
      expect(Buffer.from(altered, 'base64url')).toEqual(Buffer.from(original, 'base64url'));
      for (const node of [here, new TaskTokens(key)]) {
        expect(node.open('swf', altered)).toEqual({ refused: 'malformed' });
        expect(() => node.decodeTaskToken(altered, 'a')).toThrow(expect.objectContaining({ name: 'ValidationException' }));
        expect(node.decodeTaskToken(original, 'a').scheduledEventId).toBe(5);
      }
    }
  });

  it('hand out fields a caller may change without changing the next open', () => {
    const here = new TaskTokens(key);
    const token = here.seal('sfn', ['a', 1]);
    const first = here.open('sfn', token);
    if ('fields' in first) first.fields.push('x');
    expect(here.open('sfn', token)).toEqual({ fields: ['a', 1] });
  });

  it('are kept for a bounded number of tokens, older ones open through their MAC', () => {
    const here = new TaskTokens(key);
    const first = here.encodeTaskToken(ref);
    for (let i = 0; i < 10_000; i++) here.encodeTaskToken({ ...ref, scheduledEventId: 100 + i });
    expect((here as unknown as { sealed: Map<string, unknown> }).sealed.size).toBeLessThanOrEqual(4096);
    expect(here.decodeTaskToken(first, 'a')).toEqual(ref);
  });
});
