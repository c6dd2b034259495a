import { describe, expect, it } from 'vitest';
import { ConsoleSessions, SESSION_COOKIE } from '../../src/console/console-session.js';

const KEYS = new Map([['AKIDCONSOLE', 'right-secret']]);
const cookieOf = (value: string) => `other=1; ${SESSION_COOKIE}=${value}`;

describe('ConsoleSessions', () => {
  it('opens a session for the right key and secret only, and verifies its cookie', () => {
    const s = new ConsoleSessions(KEYS, Buffer.alloc(32, 1), 60_000, () => 1_000);
    expect(s.login('AKIDCONSOLE', 'wrong-secret')).toBeUndefined();
    expect(s.login('AKIDNOBODY', 'right-secret')).toBeUndefined();
    const value = s.login('AKIDCONSOLE', 'right-secret')!;
    expect(s.verify(cookieOf(value))).toEqual({ accessKeyId: 'AKIDCONSOLE', expires: 61_000 });
    expect(s.setCookie(value, false)).toBe(`${SESSION_COOKIE}=${value}; Max-Age=60; Path=/; HttpOnly; SameSite=Strict`);
  });

  it('refuses a tampered, foreign, expired or re-keyed cookie', () => {
    let now = 1_000;
    const keys = new Map(KEYS);
    const s = new ConsoleSessions(keys, Buffer.alloc(32, 1), 60_000, () => now);
    const value = s.login('AKIDCONSOLE', 'right-secret')!;
    const [payload, sig] = value.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ k: 'AKIDCONSOLE', e: 9e15 })).toString('base64url');
    expect(s.verify(cookieOf(`${forged}.${sig}`))).toBeUndefined();
    expect(s.verify(cookieOf(`${payload}.${sig.slice(1)}x`))).toBeUndefined();
    // Another node process (another node secret) does not take it.
    expect(new ConsoleSessions(keys, Buffer.alloc(32, 2), 60_000, () => now).verify(cookieOf(value))).toBeUndefined();
    now = 61_000;
    expect(s.verify(cookieOf(value))).toBeUndefined();
    now = 2_000;
    keys.set('AKIDCONSOLE', 'new-secret');
    expect(s.verify(cookieOf(value))).toBeUndefined();
  });
});
