import { describe, expect, it } from 'vitest';
import { runCase, SFN_T0, type SfnCase } from '../helpers/sfn-driver.js';
import { SFN_CASES } from './sfn-compile-cases.js';

function check(c: SfnCase, crash: boolean): void {
  const run = runCase(c, { crash });
  if (c.expect.status === 'SUCCEEDED') expect(run.output).toEqual(c.expect);
  else {
    expect(run.output.status).toBe(c.expect.status);
    if ('error' in c.expect && c.expect.error !== undefined) expect(run.output).toMatchObject({ error: c.expect.error });
    if ('cause' in c.expect && c.expect.cause !== undefined) expect(run.output).toMatchObject({ cause: c.expect.cause });
  }
  if (c.events) expect(run.types).toEqual(c.events);
  c.check?.(run);
  // A run that ends within its first transition has nothing to restore; every other one restored at least once.
  if (crash && run.events.some((e) => e.at > SFN_T0)) expect(run.restores).toBeGreaterThan(0);
}

describe('compiled state machines: the table', () => {
  it('has at least 70 cases with unique names', () => {
    expect(SFN_CASES.length).toBeGreaterThanOrEqual(70);
    expect(new Set(SFN_CASES.map((c) => c.name)).size).toBe(SFN_CASES.length);
  });
  for (const c of SFN_CASES) it(c.name, () => check(c, false));
});

describe('compiled state machines: crash, restore and rearm at every step', () => {
  for (const c of SFN_CASES) it(c.name, () => check(c, true));
});
