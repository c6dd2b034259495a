import { describe, expect, it } from 'vitest';
import { advance, applyLinkOp, previousOf, type LinkBook } from '../../src/sfn/kind/event-links.js';
import type { SfnLink } from '../../src/sfn/compile/contract.js';

/** Numbers events as the host does: `[actorId, link?]` in order → `id(prev)`. */
function number(book: LinkBook, events: Array<[string, SfnLink?]>, from = 1): string[] {
  return events.map(([actor, link], i) => {
    const id = from + i;
    const prev = previousOf(book, actor, link);
    advance(book, actor, id, link);
    return `${id}(${prev})`;
  });
}

describe('event links (previousEventId as AWS sets it)', () => {
  it('an actor chains its own events; a seeded chain starts at the seeding event; none links to 0', () => {
    const book: LinkBook = { last: {} };
    expect(number(book, [['root'], ['root', { seed: ['b0', 'b1'] }], ['b1'], ['b0'], ['b0'], ['root', { none: true }]])).toEqual(['1(0)', '2(1)', '3(2)', '4(2)', '5(4)', '6(0)']);
  });

  it('a Map slot queue hands the finished iteration\'s position to the next one, oldest first; empty, the state\'s', () => {
    const book: LinkBook = { last: { M: 10, k0: 14, k1: 17 } };
    expect(number(book, [
      ['M', { from: 'k1', keep: true, push: 'q' }], // k1 done first: its slot waits with 17
      ['M', { from: 'k0', keep: true, push: 'q' }], // then k0's with 14
      ['M', { pull: 'q', keep: true, seed: ['k2'] }], // k2 takes k1's slot
      ['M', { pull: 'q', keep: true, seed: ['k3'] }],
      ['M', { pull: 'q', keep: true, seed: ['k4'] }], // nothing waits: MapStateStarted's position
    ], 20)).toEqual(['20(17)', '21(14)', '22(17)', '23(14)', '24(10)']);
    expect(book.last).toMatchObject({ M: 10, k2: 22, k3: 23, k4: 24 });
    expect(book.queues).toEqual({});
  });

  it('join keeps the latest position, a keep event leaves its chain, drop forgets chains and queues', () => {
    const book: LinkBook = { last: { P: 3, b0: 9, b1: 7 }, queues: { 'P/x.1.': [5] } };
    applyLinkOp(book, { op: 'join', into: 'P', from: ['b1'] });
    applyLinkOp(book, { op: 'join', into: 'P', from: ['b0'] });
    applyLinkOp(book, { op: 'join', into: 'P', from: ['b1'] });
    expect(number(book, [['P', { keep: true }], ['P']], 10)).toEqual(['10(9)', '11(9)']);
    number(book, [['M', { join: 'P' }]], 12);
    expect(book.last.P).toBe(12);
    applyLinkOp(book, { op: 'drop', keys: ['b0', 'P/x.1.'] });
    expect(book).toEqual({ last: { P: 12, b1: 7, M: 12 }, queues: {} });
  });
});
