import { describe, expect, it } from 'vitest';
import type { GraphContext } from '../../src/sfn/compile/graph-context.js';
import { countRecords } from '../../src/sfn/compile/history-limit.js';
import { Step, type StepEnv } from '../../src/sfn/compile/step.js';

describe('a step over the history limit with very many children to stop', () => {
  it('keeps all 200,000 stops (a push(...spread) of them threw RangeError past ~125,000)', () => {
    const ctx = { seq: 0, limitHit: false } as unknown as GraphContext;
    const env = { selfId: 'root' } as unknown as StepEnv;
    const s = new Step(ctx, env);
    for (let i = 0; i < 200_000; i += 1) s.stops.push(`root/M.1.${i}`);
    s.record('MapStateFailed');
    const failing = countRecords(s, ctx, 25_000, 25_000);
    expect(failing).not.toBe(s);
    expect(failing.stops.length).toBe(200_000);
    expect(failing.ctx.fault).toMatchObject({ error: 'States.Runtime' });
  });
});
