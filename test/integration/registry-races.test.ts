import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';

/**
 * Requests that change one domain, type or activity at the same moment. Each read-check-write used
 * to meet the other writers' revision as an error (InternalFailure); now it reads again and answers
 * as the winner left the record, as AWS does: one success, then the fault of the new state.
 */
let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.stop(); });

const N = 10;
/** The answers of N calls made at once, counted by fault name ('ok' for a success). */
async function race(calls: (i: number) => Promise<unknown>): Promise<Record<string, number>> {
  const answers = await Promise.all(Array.from({ length: N }, (_, i) => calls(i).then(() => 'ok', (err: { name?: string }) => err.name ?? String(err))));
  const counts: Record<string, number> = {};
  for (const a of answers) counts[a] = (counts[a] ?? 0) + 1;
  return counts;
}

describe('concurrent changes of one registry record', () => {
  it('DeprecateDomain: one deprecates, the rest answer DomainDeprecatedFault', async () => {
    const name = uniqueDomain('race');
    await e.client.call('RegisterDomain', { name, workflowExecutionRetentionPeriodInDays: '1' });
    expect(await race(() => e.client.call('DeprecateDomain', { name }))).toEqual({ ok: 1, DomainDeprecatedFault: N - 1 });
    const both = await race((i) => e.client.call(i % 2 ? 'DeprecateDomain' : 'UndeprecateDomain', { name }));
    expect(Object.keys(both).filter((k) => !['ok', 'DomainDeprecatedFault', 'DomainAlreadyExistsFault'].includes(k))).toEqual([]);
  });

  it('workflow and activity types: deprecate, undeprecate and delete answer the state they meet', async () => {
    const domain = uniqueDomain('race');
    await e.client.call('RegisterDomain', { name: domain, workflowExecutionRetentionPeriodInDays: '1' });
    const workflowType = { name: 'wt', version: '1' };
    await e.client.call('RegisterWorkflowType', { domain, ...workflowType });
    expect(await race(() => e.client.call('DeprecateWorkflowType', { domain, workflowType }))).toEqual({ ok: 1, TypeDeprecatedFault: N - 1 });
    expect(await race(() => e.client.call('DeleteWorkflowType', { domain, workflowType }))).toEqual({ ok: 1, UnknownResourceFault: N - 1 });
    const activityType = { name: 'at', version: '1' };
    await e.client.call('RegisterActivityType', { domain, ...activityType });
    const both = await race((i) => e.client.call(i % 2 ? 'DeprecateActivityType' : 'UndeprecateActivityType', { domain, activityType }));
    expect(Object.keys(both).filter((k) => !['ok', 'TypeDeprecatedFault', 'TypeAlreadyExistsFault'].includes(k))).toEqual([]);
    expect(both.ok).toBeGreaterThanOrEqual(1);
  });

  it('Step Functions TagResource: every call succeeds and every tag is kept', async () => {
    const definition = JSON.stringify({ StartAt: 'P', States: { P: { Type: 'Pass', End: true } } });
    const { stateMachineArn } = await e.client.call<{ stateMachineArn: string }>('CreateStateMachine', {
      name: `race-${Date.now()}`, definition, roleArn: 'arn:aws:iam::123456789012:role/r',
    });
    expect(await race((i) => e.client.call('TagResource', { resourceArn: stateMachineArn, tags: [{ key: `k${i}`, value: 'v' }] }))).toEqual({ ok: N });
    const { tags } = await e.client.call<{ tags: { key: string }[] }>('ListTagsForResource', { resourceArn: stateMachineArn });
    expect(tags.map((t) => t.key).sort()).toEqual(Array.from({ length: N }, (_, i) => `k${i}`).sort());
  });

  it('Step Functions DeleteActivity: every call succeeds, as deleting a deleted activity does on AWS', async () => {
    const { activityArn } = await e.client.call<{ activityArn: string }>('CreateActivity', { name: `race-${Date.now()}` });
    expect(await race(() => e.client.call('DeleteActivity', { activityArn }))).toEqual({ ok: N });
    await expect(e.client.call('DescribeActivity', { activityArn })).rejects.toMatchObject({ name: 'ActivityDoesNotExist' });
  });
});
