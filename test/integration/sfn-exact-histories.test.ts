import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { branchCases } from '../fixtures/sfn-histories/branches.js';
import { linearCases } from '../fixtures/sfn-histories/linear.js';
import { fill, runHistoryCase } from '../helpers/sfn-history-cases.js';
import { startSfnHttpEngine, type SfnHttpEngine } from '../helpers/sfn-http.js';

/*
 * Step Functions histories event for event as AWS records them (every member but timestamps),
 * through @aws-sdk/client-sfn against a real engine. Each case names its AWS recording.
 */

let h: SfnHttpEngine | undefined;
beforeAll(async () => { h = await startSfnHttpEngine(); });
afterAll(async () => { await h?.stop(); });

describe.each([
  ['without branches', linearCases],
  ['of Parallel and Map states', branchCases],
])('exact AWS histories %s', (_label, cases) => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { names, events } = await runHistoryCase(h!.sfn, c);
    expect(events).toEqual(fill(c.events, names));
  }, 30_000);
});
