import { describe, expect, it } from 'vitest';
import { connectionOf, RequestLimiter } from '../../src/transport/request-limit.js';

describe('NATS API request limits', () => {
  it('names the client connection by its reply inbox', () => {
    expect(connectionOf('_INBOX.ABC123.7')).toBe('_INBOX.ABC123');
    expect(connectionOf('_INBOX_worker.ABC123.99')).toBe('_INBOX_worker.ABC123');
    expect(connectionOf('_INBOX.ONEOFF')).toBe('_INBOX.ONEOFF');
  });

  it('runs a few per connection, queues some in order, refuses the rest at once', async () => {
    const l = new RequestLimiter({ perConnection: 2, queuedPerConnection: 2, pollsPerConnection: 1, total: 100 });
    const a = l.admit('_INBOX.A.1')!;
    const b = l.admit('_INBOX.A.2')!;
    const started: string[] = [];
    void l.admit('_INBOX.A.3')!.then((r) => { started.push('3'); r(); });
    void l.admit('_INBOX.A.4')!.then(() => { started.push('4'); });
    expect(l.admit('_INBOX.A.5')).toBeUndefined();
    // another connection is not held up by A's flood
    expect(l.admit('_INBOX.B.1')).toBeDefined();
    // long polls have their own bound
    expect(l.admit('_INBOX.A.6', true)).toBeDefined();
    expect(l.admit('_INBOX.A.7', true)).toBeUndefined();
    expect(l.refused).toBe(2);
    (await a)();
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual(['3', '4']);
    (await b)();
    expect(l.size).toBe(3); // 4 running, B.1, A.6
  });

  it('bounds the node as a whole', () => {
    const l = new RequestLimiter({ perConnection: 10, queuedPerConnection: 10, pollsPerConnection: 10, total: 3 });
    for (let i = 0; i < 3; i++) expect(l.admit(`_INBOX.C${i}.1`)).toBeDefined();
    expect(l.admit('_INBOX.D.1')).toBeUndefined();
    expect(l.admit('_INBOX.D.2', true)).toBeUndefined();
  });
});
