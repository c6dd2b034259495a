import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode } from '../../src/server.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';

/* TagResource / UntagResource / ListTagsForResource on domain ARNs. */

type Obj = Record<string, any>;
let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.stop(); });

const call = <T = Obj>(action: string, input: object): Promise<T> => e.client.call<T>(action, input);
const arnOf = (name: string) => `arn:aws:swf:us-east-1:000000000000:/domain/${name}`;
const tagsOf = async (resourceArn: string) => (await call('ListTagsForResource', { resourceArn })).tags;

async function newDomain(extra: Obj = {}): Promise<string> {
  const name = uniqueDomain('tags');
  await call('RegisterDomain', { name, workflowExecutionRetentionPeriodInDays: '1', ...extra });
  return name;
}

describe('domain tags', () => {
  it('lists the tags given at registration; the ARN is the one DescribeDomain shows', async () => {
    const name = await newDomain({ tags: [{ key: 'team', value: 'orders' }, { key: 'bare' }] });
    const arn = (await call('DescribeDomain', { name })).domainInfo.arn;
    expect(arn).toBe(arnOf(name));
    expect(await tagsOf(arn)).toEqual([{ key: 'team', value: 'orders' }, { key: 'bare' }]);
    expect(await tagsOf(arnOf(await newDomain()))).toEqual([]);
  });

  it('adds, overwrites and removes tags', async () => {
    const arn = arnOf(await newDomain({ tags: [{ key: 'a', value: '1' }] }));
    await call('TagResource', { resourceArn: arn, tags: [{ key: 'b', value: '2' }, { key: 'a', value: 'one' }, { key: 'c' }] });
    expect(await tagsOf(arn)).toEqual([{ key: 'a', value: 'one' }, { key: 'b', value: '2' }, { key: 'c' }]);
    await call('UntagResource', { resourceArn: arn, tagKeys: ['a', 'nope'] });
    expect(await tagsOf(arn)).toEqual([{ key: 'b', value: '2' }, { key: 'c' }]);
    await call('UntagResource', { resourceArn: arn, tagKeys: ['b', 'c'] });
    expect(await tagsOf(arn)).toEqual([]);
  });

  it('accepts unicode letters, digits, whitespace and _ . : / = + - @, at the length limits', async () => {
    const arn = arnOf(await newDomain());
    const tags = [
      { key: 'Ключ naïve 東京', value: 'värde 値' },
      { key: 'a_b.c:d/e=f+g-h@i', value: '' },
      { key: 'k'.repeat(128), value: 'v'.repeat(256) },
    ];
    await call('TagResource', { resourceArn: arn, tags });
    expect(await tagsOf(arn)).toEqual(tags);
  });

  it('allows 50 tags and answers TooManyTagsFault beyond, counting the ones already there', async () => {
    const arn = arnOf(await newDomain());
    const many = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${from + i}`, value: 'x' }));
    await call('TagResource', { resourceArn: arn, tags: many(0, 40) });
    await expect(call('TagResource', { resourceArn: arn, tags: many(40, 11) })).rejects.toMatchObject({ name: 'TooManyTagsFault' });
    expect(await tagsOf(arn)).toHaveLength(40);
    await call('TagResource', { resourceArn: arn, tags: [...many(35, 15)] });
    expect(await tagsOf(arn)).toHaveLength(50);
    await call('TagResource', { resourceArn: arn, tags: [{ key: 'k0', value: 'replaced' }] });
    await expect(call('TagResource', { resourceArn: arn, tags: [{ key: 'k50' }] })).rejects.toMatchObject({ name: 'TooManyTagsFault' });
    expect(await tagsOf(arn)).toHaveLength(50);
  });

  it('keeps every tag when many callers on two nodes tag the same domain at once (revision check and retry)', async () => {
    // A second node in the API queue group: requests spread over both, whose writes meet the revision check.
    const other = await startNode({ natsUrl: e.url, partitions: 4, ownPartitions: [], logger: pino({ level: 'silent' }) });
    try {
      const arn = arnOf(await newDomain());
      await Promise.all(Array.from({ length: 24 }, (_, i) => call('TagResource', { resourceArn: arn, tags: [{ key: `p${i}`, value: String(i) }] })));
      const tags: Obj[] = await tagsOf(arn);
      expect(tags.map((t) => t.key).sort()).toEqual(Array.from({ length: 24 }, (_, i) => `p${i}`).sort());
    } finally {
      await other.stop();
    }
  });

  it('shows a tag to the next call on either node, right after TagResource answers (no stale cache read)', async () => {
    const other = await startNode({ natsUrl: e.url, partitions: 4, ownPartitions: [], logger: pino({ level: 'silent' }) });
    try {
      const arn = arnOf(await newDomain());
      for (let i = 0; i < 40; i++) {
        await call('TagResource', { resourceArn: arn, tags: [{ key: `r${i}`, value: String(i) }] });
        expect((await tagsOf(arn)).map((t: Obj) => t.key)).toContain(`r${i}`);
      }
    } finally {
      await other.stop();
    }
  });

  it.each([
    ['TagResource', { tags: [{ key: '' }] }],
    ['TagResource', { tags: [{ key: 'k'.repeat(129) }] }],
    ['TagResource', { tags: [{ key: 'k', value: 'v'.repeat(257) }] }],
    ['TagResource', { tags: [{ key: 'bad#key' }] }],
    ['TagResource', { tags: [{ key: 'k', value: 'bad!value' }] }],
    ['TagResource', { tags: [{ value: 'no key' }] }],
    ['TagResource', {}],
    ['UntagResource', {}],
    ['UntagResource', { tagKeys: [''] }],
    ['UntagResource', { tagKeys: ['semi;colon'] }],
  ])('%s %j → ValidationException', async (action, input) => {
    const arn = arnOf(await newDomain());
    await expect(call(action, { resourceArn: arn, ...input })).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(call('ListTagsForResource', {})).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it.each(['TagResource', 'UntagResource', 'ListTagsForResource'])('%s on an ARN that names no domain here → UnknownResourceFault', async (action) => {
    const name = await newDomain();
    const arns = [
      arnOf(uniqueDomain('missing')),
      `arn:aws:swf:eu-west-1:000000000000:/domain/${name}`,
      `arn:aws:swf:us-east-1:111111111111:/domain/${name}`,
      'arn:aws:swf:us-east-1:000000000000:/domain/',
      'not-an-arn',
    ];
    for (const resourceArn of arns) {
      await expect(call(action, { resourceArn, tags: [{ key: 'k' }], tagKeys: ['k'] }), resourceArn).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    }
    // Over NATS both services share the action name: a Step Functions ARN is Step Functions' to answer.
    const states = `arn:aws:states:us-east-1:000000000000:activity:${name}`;
    await expect(call(action, { resourceArn: states, tags: [{ key: 'k' }], tagKeys: ['k'] }), states).rejects.toMatchObject({ name: 'ResourceNotFound' });
  });
});
