import { describe, expect, it } from 'vitest';
import { runCase, SFN_T0, type SfnCase } from '../helpers/sfn-driver.js';
import { ANY_OUTPUT, JSONATA_CASES } from './sfn-jsonata-cases.js';
import { VARIABLE_CASES } from './sfn-variable-cases.js';

const CASES: SfnCase[] = [...JSONATA_CASES, ...VARIABLE_CASES];

function check(c: SfnCase, crash: boolean): void {
  const run = runCase(c, { crash });
  // ANY_OUTPUT: the case's check looks at the output itself.
  if (c.expect.status === 'SUCCEEDED' && c.expect.output === ANY_OUTPUT) expect(run.output.status).toBe('SUCCEEDED');
  else expect(run.output).toEqual(c.expect);
  if (c.events) expect(run.types).toEqual(c.events);
  c.check?.(run);
  if (crash && run.events.some((e) => e.at > SFN_T0)) expect(run.restores).toBeGreaterThan(0);
}

describe('JSONata and variables: the table', () => {
  it('has at least 80 cases with unique names', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(80);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });
  for (const c of CASES) it(c.name, () => check(c, false));
});

describe('JSONata and variables: crash, restore and rearm at every step', () => {
  for (const c of CASES) it(c.name, () => check(c, true));
});
