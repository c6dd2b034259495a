import { expect } from 'vitest';
import type { CliResult } from '../helpers/cli-process.js';

/** A good answer: exit 0, nothing on stderr. */
export function ok(r: CliResult): string {
  expect(r.stderr, r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}
/** --json output of a good answer. */
export const okJson = (r: CliResult) => JSON.parse(ok(r)) as Record<string, any>;
/** Bad usage: exit 2, the problem and the command's usage on stderr, nothing on stdout. */
export function usage(r: CliResult, problem: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(problem);
  expect(r.stderr).toMatch(/usage: actorflow sfn/);
  expect(r.stdout).toBe('');
}
/** An AWS fault: exit 1 and `ERROR <name>: …` on stderr. */
export function fault(r: CliResult, name: string, message?: RegExp): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toMatch(new RegExp(`^ERROR ${name}: `, 'm'));
  if (message) expect(r.stderr).toMatch(message);
}
