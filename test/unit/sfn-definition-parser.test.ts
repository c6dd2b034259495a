import { describe, expect, it } from 'vitest';
import { InvalidDefinitionError, parseDefinition } from '../../src/sfn/asl/validate-definition.js';
import { OFF_THREAD_LENGTH, parseDefinitionOffThread } from '../../src/sfn/kind/definition-parser.js';

/* Large definitions are parsed on a worker thread, with the same answers as parseDefinition. */

const parallel = (n: number, bad = false) => JSON.stringify({
  StartAt: 'Par',
  States: { Par: { Type: 'Parallel', End: true, Branches: Array.from({ length: n }, (_, b) => ({ StartAt: `B${b}`, States: { [`B${b}`]: { Type: 'Pass', ...(bad && b === n - 1 ? { Next: 'Nowhere' } : { End: true }) } } })) } },
});

/** Counts the ticks of a 1 ms interval while `p` is pending: a parse on the event loop lets none run. */
async function ticksDuring<T>(p: () => Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const t = setInterval(() => { ticks += 1; }, 1);
  try {
    const value = await p();
    return { value, ticks };
  } finally {
    clearInterval(t);
  }
}

describe('definition parser', () => {
  it('parses a 650 KB definition (a Parallel of 10,000 branches) off the event loop, to what parseDefinition gives', async () => {
    const text = parallel(10_000);
    expect(text.length).toBeGreaterThan(OFF_THREAD_LENGTH);
    const { value, ticks } = await ticksDuring(() => parseDefinitionOffThread(text));
    expect(value).toEqual(parseDefinition(text));
    expect(ticks).toBeGreaterThan(0);
  }, 60_000);

  it('refuses a large invalid definition with the problems parseDefinition finds', async () => {
    const text = parallel(3_000, true);
    expect(text.length).toBeGreaterThan(OFF_THREAD_LENGTH);
    const err = await parseDefinitionOffThread(text).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidDefinitionError);
    expect(() => parseDefinition(text)).toThrow((err as Error).message);
    expect((err as Error).message).toContain('MISSING_TRANSITION_TARGET');
  }, 60_000);

  it('parses small definitions at once, with the same faults', async () => {
    await expect(parseDefinitionOffThread(parallel(2))).resolves.toEqual(parseDefinition(parallel(2)));
    await expect(parseDefinitionOffThread('{')).rejects.toBeInstanceOf(InvalidDefinitionError);
  });
});
