import {
  CreateActivityCommand, CreateStateMachineCommand, InvalidArn, ListTagsForResourceCommand, PublishStateMachineVersionCommand,
  ResourceNotFound, TagResourceCommand, TooManyTags, UntagResourceCommand, ValidationException, type SFNServiceException,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshName, rejection, SFN_ROLE, startSfnHttpEngine, type SfnHttpEngine } from '../helpers/sfn-http.js';
import { REGION } from '../helpers/swf-http.js';
import { uniqueDomain } from '../helpers/engine.js';

let h: SfnHttpEngine;
beforeAll(async () => { h = await startSfnHttpEngine(); });
afterAll(async () => { await h?.stop(); });

const ARN = `arn:aws:states:${REGION}:000000000000`;
const PASS = JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Pass', End: true } } });

async function expectFault(p: Promise<unknown>, cls: abstract new (...a: any[]) => SFNServiceException): Promise<any> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(cls);
  return err;
}

const tagsOf = async (resourceArn: string) => (await h.sfn.send(new ListTagsForResourceCommand({ resourceArn }))).tags;

describe('tags on activities and state machines (AWS SDK)', () => {
  it('keeps the tags given on create, adds, overwrites and removes them', async () => {
    const { activityArn } = await h.sfn.send(new CreateActivityCommand({ name: freshName('tag'), tags: [{ key: 'team', value: 'orders' }] }));
    const { stateMachineArn } = await h.sfn.send(new CreateStateMachineCommand({
      name: freshName('tag'), roleArn: SFN_ROLE, definition: PASS, tags: [{ key: 'a', value: '1' }, { key: 'empty', value: '' }],
    }));
    expect(await tagsOf(activityArn!)).toEqual([{ key: 'team', value: 'orders' }]);
    expect(await tagsOf(stateMachineArn!)).toEqual([{ key: 'a', value: '1' }, { key: 'empty', value: '' }]);

    for (const resourceArn of [activityArn!, stateMachineArn!]) {
      await h.sfn.send(new TagResourceCommand({ resourceArn, tags: [{ key: 'a', value: '2' }, { key: 'b c', value: 'x:y/z=+-@.' }] }));
      await h.sfn.send(new UntagResourceCommand({ resourceArn, tagKeys: ['team', 'empty', 'never-set'] }));
      expect(await tagsOf(resourceArn)).toEqual([{ key: 'a', value: '2' }, { key: 'b c', value: 'x:y/z=+-@.' }]);
    }
  });

  it('holds at most 50 tags in all and refuses AWS\'s bad keys and values, changing nothing', async () => {
    const { stateMachineArn } = await h.sfn.send(new CreateStateMachineCommand({ name: freshName('tag'), roleArn: SFN_ROLE, definition: PASS }));
    const resourceArn = stateMachineArn!;
    const forty = Array.from({ length: 40 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    await h.sfn.send(new TagResourceCommand({ resourceArn, tags: forty }));
    await expectFault(h.sfn.send(new TagResourceCommand({ resourceArn, tags: Array.from({ length: 11 }, (_, i) => ({ key: `n${i}`, value: 'v' })) })), TooManyTags);
    // Overwriting keys already set does not count twice.
    await h.sfn.send(new TagResourceCommand({ resourceArn, tags: [...forty.slice(0, 10), ...Array.from({ length: 10 }, (_, i) => ({ key: `m${i}`, value: '' }))] }));
    expect((await tagsOf(resourceArn))!.length).toBe(50);
    await expectFault(h.sfn.send(new TagResourceCommand({ resourceArn, tags: [{ key: 'one-more', value: 'v' }] })), TooManyTags);

    for (const tag of [{ key: 'k'.repeat(129), value: 'v' }, { key: 'k0', value: 'v'.repeat(257) }, { key: 'aws:reserved', value: 'v' },
      { key: 'AWS:reserved', value: 'v' }, { key: 'bad#key', value: 'v' }, { key: 'k0', value: 'bad*value' }]) {
      await expectFault(h.sfn.send(new TagResourceCommand({ resourceArn, tags: [tag] })), ValidationException);
    }
    await expectFault(h.sfn.send(new TagResourceCommand({ resourceArn } as any)), ValidationException);
    await expectFault(h.sfn.send(new UntagResourceCommand({ resourceArn, tagKeys: ['k'.repeat(129)] })), ValidationException);
    await expectFault(h.sfn.send(new UntagResourceCommand({ resourceArn } as any)), ValidationException);
    await expectFault(h.sfn.send(new CreateActivityCommand({ name: freshName('tag'), tags: [{ key: 'aws:x', value: 'v' }] })), ValidationException);
    const tags = await tagsOf(resourceArn);
    expect(tags!.length).toBe(50);
    expect(tags!.find((t) => t.key === 'k0')).toEqual({ key: 'k0', value: 'v' });
  });

  it('answers ResourceNotFound for what carries no tags here and InvalidArn for what is no ARN', async () => {
    const c = await h.sfn.send(new CreateStateMachineCommand({ name: freshName('tag'), roleArn: SFN_ROLE, definition: PASS }));
    const v = await h.sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: c.stateMachineArn }));
    const notFound = await expectFault(h.sfn.send(new TagResourceCommand({ resourceArn: v.stateMachineVersionArn, tags: [{ key: 'a', value: 'b' }] })), ResourceNotFound);
    expect(notFound.message).toBe(`Resource not found: '${v.stateMachineVersionArn}'`);
    for (const resourceArn of [`${ARN}:activity:${freshName('none')}`, `${ARN}:stateMachine:${freshName('none')}`, `arn:aws:states:${REGION}:111122223333:stateMachine:x`]) {
      await expectFault(h.sfn.send(new ListTagsForResourceCommand({ resourceArn })), ResourceNotFound);
      await expectFault(h.sfn.send(new UntagResourceCommand({ resourceArn, tagKeys: ['a'] })), ResourceNotFound);
    }
    for (const resourceArn of ['nope', `${ARN}:stateMachine:a b`, 'arn:aws:swf:us-east-1:000000000000:/domain/x']) {
      await expectFault(h.sfn.send(new ListTagsForResourceCommand({ resourceArn })), InvalidArn);
    }
  });

  it('over NATS, a states ARN is tagged by Step Functions and a domain ARN by SWF', async () => {
    const c = h.engine.client;
    const { stateMachineArn } = await h.sfn.send(new CreateStateMachineCommand({ name: freshName('tag'), roleArn: SFN_ROLE, definition: PASS }));
    await c.call('TagResource', { resourceArn: stateMachineArn, tags: [{ key: 'via', value: 'nats' }] });
    expect((await c.call<{ tags: unknown[] }>('ListTagsForResource', { resourceArn: stateMachineArn })).tags).toEqual([{ key: 'via', value: 'nats' }]);
    const domain = uniqueDomain('tag');
    await c.call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
    const domainArn = `arn:aws:swf:${REGION}:000000000000:/domain/${domain}`;
    await c.call('TagResource', { resourceArn: domainArn, tags: [{ key: 'swf', value: 'yes' }] });
    expect((await c.call<{ tags: unknown[] }>('ListTagsForResource', { resourceArn: domainArn })).tags).toEqual([{ key: 'swf', value: 'yes' }]);
  });
});
