import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/engine/virtual-clock.js';
import { durationToMs } from '../../src/protocol/human-duration.js';
import { until } from '../helpers/until.js';

const T0 = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;
let clock: VirtualClock | undefined;
afterEach(() => clock?.stop());

describe('VirtualClock', () => {
  it('advance fires the timers it passes in order, each at its own virtual time', async () => {
    clock = new VirtualClock({ start: T0, skip: false });
    const c = clock;
    const fired: [string, number][] = [];
    c.setTimeout(() => fired.push(['b', c.now()]), 2 * DAY);
    c.setTimeout(() => fired.push(['a', c.now()]), DAY);
    const gone = c.setTimeout(() => fired.push(['gone', c.now()]), DAY / 2);
    c.clearTimeout(gone);
    // Over 2^31-1 ms: a real clock would need chained waits; here it is one heap entry.
    c.setTimeout(() => fired.push(['year', c.now()]), 365 * DAY);
    await c.advance(3 * DAY);
    expect(fired.map(([n]) => n)).toEqual(['a', 'b']);
    expect(fired[0]![1] - T0).toBeGreaterThanOrEqual(DAY);
    expect(fired[0]![1] - T0).toBeLessThan(DAY + 1000);
    expect(fired[1]![1] - T0).toBeGreaterThanOrEqual(2 * DAY);
    expect(fired[1]![1] - T0).toBeLessThan(2 * DAY + 1000);
    expect(c.now() - T0).toBeGreaterThanOrEqual(3 * DAY);
    expect(c.nextDeadline() - T0).toBeGreaterThanOrEqual(365 * DAY);
  });

  it('time passes as usual between jumps, and a timer set while others fire waits for the next tick', async () => {
    clock = new VirtualClock({ start: T0, skip: false });
    const c = clock;
    const order: string[] = [];
    c.setTimeout(() => { order.push('first'); c.setTimeout(() => order.push('chained'), 0); }, 10);
    await until(() => order.length === 2, { timeoutMs: 2000, message: 'both timers in real time' });
    expect(order).toEqual(['first', 'chained']);
    expect(c.now() - T0).toBeGreaterThanOrEqual(10);
    expect(c.now() - T0).toBeLessThan(DAY);
  });

  it('skips to the next deadline only while nothing holds it, and never to a housekeeping timer', async () => {
    clock = new VirtualClock({ start: T0, quietMs: 20 });
    const c = clock;
    let housekeeping = false;
    c.skipping.background.setTimeout(() => { housekeeping = true; }, DAY);
    await new Promise((r) => setTimeout(r, 200));
    expect(housekeeping, 'time jumped to a housekeeping timer').toBe(false);
    expect(c.now() - T0).toBeLessThan(DAY);

    const release = c.skipping.hold();
    let deadline = 0;
    c.setTimeout(() => { deadline = c.now(); }, 7 * DAY);
    await new Promise((r) => setTimeout(r, 200));
    expect(deadline, 'time jumped while work was held').toBe(0);
    release();
    await until(() => deadline > 0, { timeoutMs: 2000, message: 'the skip to the 7-day deadline' });
    expect(deadline - T0).toBeGreaterThanOrEqual(7 * DAY);
    // The jump passed the housekeeping timer: it fired on the way.
    expect(housekeeping).toBe(true);
  });

  it('a task in hand holds time still until it is closed', async () => {
    let inHand = 1;
    clock = new VirtualClock({ start: T0, quietMs: 20, watch: { stored: () => { inHand = 0; }, get inHand() { return inHand; } } });
    const c = clock;
    let fired = false;
    c.setTimeout(() => { fired = true; }, DAY);
    await new Promise((r) => setTimeout(r, 200));
    expect(fired).toBe(false);
    c.skipping.stored('run', []);
    await until(() => fired, { timeoutMs: 2000, message: 'the skip once the task closed' });
  });
});

describe('durationToMs', () => {
  it('reads ms and unit strings, refuses the rest', () => {
    expect(durationToMs('30d')).toBe(30 * DAY);
    expect(durationToMs('1h')).toBe(3_600_000);
    expect(durationToMs('250ms')).toBe(250);
    expect(durationToMs('2w')).toBe(14 * DAY);
    expect(durationToMs(1500)).toBe(1500);
    expect(() => durationToMs('soon' as never)).toThrow(TypeError);
    expect(() => durationToMs(-1)).toThrow(RangeError);
  });
});
