import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';

let e: TestEngine;
beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.stop(); });

type Obj = Record<string, any>;
const call = <T = Obj>(action: string, input: object = {}): Promise<T> => e.client.call<T>(action, input);

async function newDomain(label: string, extra: Obj = {}): Promise<string> {
  const name = uniqueDomain(label);
  await call('RegisterDomain', { name, workflowExecutionRetentionPeriodInDays: '1', ...extra });
  return name;
}

/** Every page of a List* call, following nextPageToken; also returns each page's size. */
async function allPages(action: string, input: Obj, itemsKey: string): Promise<{ items: Obj[]; sizes: number[] }> {
  const items: Obj[] = [];
  const sizes: number[] = [];
  let nextPageToken: string | undefined;
  do {
    const page = await call(action, { ...input, nextPageToken });
    items.push(...page[itemsKey]);
    sizes.push(page[itemsKey].length);
    nextPageToken = page.nextPageToken;
  } while (nextPageToken);
  return { items, sizes };
}

describe('domains', () => {
  it('registers and describes a domain with its arn and configuration', async () => {
    const name = uniqueDomain('desc');
    await call('RegisterDomain', { name, description: 'the orders domain', workflowExecutionRetentionPeriodInDays: '7' });
    const d = await call('DescribeDomain', { name });
    expect(d.domainInfo).toEqual({ name, status: 'REGISTERED', description: 'the orders domain', arn: `arn:aws:swf:us-east-1:000000000000:/domain/${name}` });
    expect(d.domainInfo.arn).toMatch(/^arn:aws:swf:[a-z0-9-]+:\d{12}:\/domain\//);
    expect(d.configuration).toEqual({ workflowExecutionRetentionPeriodInDays: '7' });
  });

  it('accepts the retention bounds 0, NONE and 90', async () => {
    for (const days of ['0', 'NONE', '90']) {
      const name = await newDomain('ret', { workflowExecutionRetentionPeriodInDays: days });
      expect((await call('DescribeDomain', { name })).configuration.workflowExecutionRetentionPeriodInDays).toBe(days);
    }
  });

  it('refuses to register a name twice, also once it is deprecated', async () => {
    const name = await newDomain('twice');
    await expect(call('RegisterDomain', { name, workflowExecutionRetentionPeriodInDays: '1' })).rejects.toMatchObject({ name: 'DomainAlreadyExistsFault' });
    await call('DeprecateDomain', { name });
    await expect(call('RegisterDomain', { name, workflowExecutionRetentionPeriodInDays: '1' })).rejects.toMatchObject({ name: 'DomainAlreadyExistsFault' });
  });

  it('deprecates once, undeprecates once', async () => {
    const name = await newDomain('dep');
    await expect(call('UndeprecateDomain', { name })).rejects.toMatchObject({ name: 'DomainAlreadyExistsFault' });
    await call('DeprecateDomain', { name });
    expect((await call('DescribeDomain', { name })).domainInfo.status).toBe('DEPRECATED');
    await expect(call('DeprecateDomain', { name })).rejects.toMatchObject({ name: 'DomainDeprecatedFault' });
    await call('UndeprecateDomain', { name });
    expect((await call('DescribeDomain', { name })).domainInfo.status).toBe('REGISTERED');
    await expect(call('UndeprecateDomain', { name })).rejects.toMatchObject({ name: 'DomainAlreadyExistsFault' });
  });

  it('lists REGISTERED and DEPRECATED separately, sorted by name, in pages, forwards and reversed', async () => {
    const prefix = uniqueDomain('list');
    const names = ['c', 'a', 'e', 'b', 'd'].map((x) => `${prefix}-${x}`);
    for (const name of names) await call('RegisterDomain', { name, workflowExecutionRetentionPeriodInDays: '1' });
    await call('DeprecateDomain', { name: `${prefix}-b` });
    await call('DeprecateDomain', { name: `${prefix}-d` });
    const mine = (xs: Obj[]) => xs.filter((d) => d.name.startsWith(`${prefix}-`));

    const whole = await call('ListDomains', { registrationStatus: 'REGISTERED' });
    expect(whole.nextPageToken).toBeUndefined();
    expect(mine(whole.domainInfos).map((d) => d.name)).toEqual([`${prefix}-a`, `${prefix}-c`, `${prefix}-e`]);
    expect(mine(whole.domainInfos).every((d) => d.status === 'REGISTERED')).toBe(true);
    const allNames = whole.domainInfos.map((d: Obj) => d.name);
    expect(allNames).toEqual([...allNames].sort());

    const deprecated = await call('ListDomains', { registrationStatus: 'DEPRECATED' });
    expect(mine(deprecated.domainInfos).map((d) => [d.name, d.status])).toEqual([[`${prefix}-b`, 'DEPRECATED'], [`${prefix}-d`, 'DEPRECATED']]);
    expect(deprecated.domainInfos.every((d: Obj) => d.status === 'DEPRECATED')).toBe(true);

    // Paging: pages of at most 2 that add up to the unpaged list.
    const paged = await allPages('ListDomains', { registrationStatus: 'REGISTERED', maximumPageSize: 2 }, 'domainInfos');
    expect(paged.sizes.length).toBeGreaterThanOrEqual(2);
    expect(paged.sizes.every((n) => n <= 2)).toBe(true);
    expect(paged.sizes.slice(0, -1).every((n) => n === 2)).toBe(true);
    expect(paged.items).toEqual(whole.domainInfos);

    const first = await call('ListDomains', { registrationStatus: 'REGISTERED', maximumPageSize: 1 });
    expect(first.domainInfos).toHaveLength(1);
    expect(typeof first.nextPageToken).toBe('string');

    const reversed = await allPages('ListDomains', { registrationStatus: 'REGISTERED', maximumPageSize: 2, reverseOrder: true }, 'domainInfos');
    expect(reversed.items).toEqual([...whole.domainInfos].reverse());
    expect(mine(reversed.items).map((d) => d.name)).toEqual([`${prefix}-e`, `${prefix}-c`, `${prefix}-a`]);
  });

  it('answers UnknownResourceFault for an unknown domain on every domain-scoped action', async () => {
    const domain = uniqueDomain('nowhere');
    const wt = { name: 'w', version: '1' };
    const calls: [string, Obj][] = [
      ['DescribeDomain', { name: domain }],
      ['DeprecateDomain', { name: domain }],
      ['UndeprecateDomain', { name: domain }],
      ['RegisterWorkflowType', { domain, ...wt }],
      ['RegisterActivityType', { domain, ...wt }],
      ['DescribeWorkflowType', { domain, workflowType: wt }],
      ['DescribeActivityType', { domain, activityType: wt }],
      ['ListWorkflowTypes', { domain, registrationStatus: 'REGISTERED' }],
      ['ListActivityTypes', { domain, registrationStatus: 'REGISTERED' }],
      ['DeprecateWorkflowType', { domain, workflowType: wt }],
      ['DeleteActivityType', { domain, activityType: wt }],
      ['StartWorkflowExecution', { domain, workflowId: 'x', workflowType: wt }],
      ['DescribeWorkflowExecution', { domain, execution: { workflowId: 'x', runId: 'r' } }],
      ['GetWorkflowExecutionHistory', { domain, execution: { workflowId: 'x', runId: 'r' } }],
      ['PollForDecisionTask', { domain, taskList: { name: 't' }, afPollTimeoutMs: 1000 }],
      ['PollForActivityTask', { domain, taskList: { name: 't' }, afPollTimeoutMs: 1000 }],
      ['CountPendingDecisionTasks', { domain, taskList: { name: 't' } }],
      ['CountPendingActivityTasks', { domain, taskList: { name: 't' } }],
    ];
    for (const [action, input] of calls) {
      await expect(call(action, input), action).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    }
  });
});

const KINDS = [
  {
    kind: 'workflow', field: 'workflowType', register: 'RegisterWorkflowType', describe: 'DescribeWorkflowType', list: 'ListWorkflowTypes',
    deprecate: 'DeprecateWorkflowType', undeprecate: 'UndeprecateWorkflowType', del: 'DeleteWorkflowType',
    defaults: {
      defaultTaskStartToCloseTimeout: '30', defaultExecutionStartToCloseTimeout: '3600', defaultTaskList: { name: 'deciders' },
      defaultTaskPriority: '5', defaultChildPolicy: 'ABANDON', defaultLambdaRole: 'arn:aws:iam::000000000000:role/x',
    },
  },
  {
    kind: 'activity', field: 'activityType', register: 'RegisterActivityType', describe: 'DescribeActivityType', list: 'ListActivityTypes',
    deprecate: 'DeprecateActivityType', undeprecate: 'UndeprecateActivityType', del: 'DeleteActivityType',
    defaults: {
      defaultTaskStartToCloseTimeout: '60', defaultTaskHeartbeatTimeout: 'NONE', defaultTaskList: { name: 'workers' },
      defaultTaskPriority: '-3', defaultTaskScheduleToStartTimeout: '120', defaultTaskScheduleToCloseTimeout: '180',
    },
  },
] as const;

describe.each(KINDS)('$kind types', (k) => {
  it('registers and describes with its configuration defaults and creationDate in epoch seconds', async () => {
    const domain = await newDomain(`${k.kind}-desc`);
    const before = Date.now() / 1000;
    await call(k.register, { domain, name: 'full', version: '1.0', description: 'all defaults', ...k.defaults });
    await call(k.register, { domain, name: 'bare', version: '1.0' });
    const after = Date.now() / 1000;

    const full = await call(k.describe, { domain, [k.field]: { name: 'full', version: '1.0' } });
    expect(full.typeInfo).toMatchObject({ [k.field]: { name: 'full', version: '1.0' }, status: 'REGISTERED', description: 'all defaults' });
    expect(full.typeInfo.deprecationDate).toBeUndefined();
    expect(typeof full.typeInfo.creationDate).toBe('number');
    expect(full.typeInfo.creationDate).toBeGreaterThanOrEqual(before - 1);
    expect(full.typeInfo.creationDate).toBeLessThanOrEqual(after + 1);
    expect(full.configuration).toEqual(k.defaults);

    const bare = await call(k.describe, { domain, [k.field]: { name: 'bare', version: '1.0' } });
    expect(bare.typeInfo).toMatchObject({ [k.field]: { name: 'bare', version: '1.0' }, status: 'REGISTERED' });
    for (const key of Object.keys(k.defaults)) expect(bare.configuration[key], key).toBeUndefined();
  });

  it('refuses to register the same name and version twice (any status); another version is fine', async () => {
    const domain = await newDomain(`${k.kind}-twice`);
    await call(k.register, { domain, name: 't', version: '1' });
    await expect(call(k.register, { domain, name: 't', version: '1' })).rejects.toMatchObject({ name: 'TypeAlreadyExistsFault' });
    await call(k.register, { domain, name: 't', version: '2' });
    await call(k.deprecate, { domain, [k.field]: { name: 't', version: '1' } });
    await expect(call(k.register, { domain, name: 't', version: '1' })).rejects.toMatchObject({ name: 'TypeAlreadyExistsFault' });
  });

  it('lists by status and name, sorted, in pages, forwards and reversed', async () => {
    const domain = await newDomain(`${k.kind}-list`);
    for (const [name, version] of [['b', '1'], ['a', '3'], ['a', '1'], ['a', '2'], ['c', '1']]) {
      await call(k.register, { domain, name, version });
    }
    await call(k.deprecate, { domain, [k.field]: { name: 'a', version: '2' } });
    await call(k.deprecate, { domain, [k.field]: { name: 'c', version: '1' } });
    const ids = (xs: Obj[]) => xs.map((t) => `${t[k.field].name}@${t[k.field].version}`);

    const registered = await call(k.list, { domain, registrationStatus: 'REGISTERED' });
    expect(ids(registered.typeInfos)).toEqual(['a@1', 'a@3', 'b@1']);
    expect(registered.nextPageToken).toBeUndefined();
    expect(registered.typeInfos.every((t: Obj) => t.status === 'REGISTERED' && typeof t.creationDate === 'number')).toBe(true);

    const deprecated = await call(k.list, { domain, registrationStatus: 'DEPRECATED' });
    expect(ids(deprecated.typeInfos)).toEqual(['a@2', 'c@1']);
    expect(deprecated.typeInfos.every((t: Obj) => t.status === 'DEPRECATED' && typeof t.deprecationDate === 'number')).toBe(true);

    expect(ids((await call(k.list, { domain, registrationStatus: 'REGISTERED', name: 'a' })).typeInfos)).toEqual(['a@1', 'a@3']);
    expect(ids((await call(k.list, { domain, registrationStatus: 'DEPRECATED', name: 'a' })).typeInfos)).toEqual(['a@2']);
    expect(ids((await call(k.list, { domain, registrationStatus: 'REGISTERED', name: 'c' })).typeInfos)).toEqual([]);
    expect(ids((await call(k.list, { domain, registrationStatus: 'REGISTERED', name: 'zzz' })).typeInfos)).toEqual([]);

    const p1 = await call(k.list, { domain, registrationStatus: 'REGISTERED', maximumPageSize: 2 });
    expect(ids(p1.typeInfos)).toEqual(['a@1', 'a@3']);
    expect(typeof p1.nextPageToken).toBe('string');
    const p2 = await call(k.list, { domain, registrationStatus: 'REGISTERED', maximumPageSize: 2, nextPageToken: p1.nextPageToken });
    expect(ids(p2.typeInfos)).toEqual(['b@1']);
    expect(p2.nextPageToken).toBeUndefined();

    const byName = await allPages(k.list, { domain, registrationStatus: 'REGISTERED', name: 'a', maximumPageSize: 1 }, 'typeInfos');
    expect(ids(byName.items)).toEqual(['a@1', 'a@3']);
    expect(byName.sizes).toEqual([1, 1]);

    const reversed = await allPages(k.list, { domain, registrationStatus: 'REGISTERED', maximumPageSize: 2, reverseOrder: true }, 'typeInfos');
    expect(ids(reversed.items)).toEqual(['b@1', 'a@3', 'a@1']);
    expect(reversed.sizes).toEqual([2, 1]);
  });

  it('deprecates, undeprecates and deletes with the documented faults', async () => {
    const domain = await newDomain(`${k.kind}-life`);
    const t = { name: 'life', version: '1' };
    await call(k.register, { domain, ...t });
    await expect(call(k.undeprecate, { domain, [k.field]: t })).rejects.toMatchObject({ name: 'TypeAlreadyExistsFault' });
    await expect(call(k.del, { domain, [k.field]: t })).rejects.toMatchObject({ name: 'TypeNotDeprecatedFault' });

    const beforeDeprecate = Date.now() / 1000;
    await call(k.deprecate, { domain, [k.field]: t });
    const dep = await call(k.describe, { domain, [k.field]: t });
    expect(dep.typeInfo.status).toBe('DEPRECATED');
    expect(dep.typeInfo.deprecationDate).toBeGreaterThanOrEqual(beforeDeprecate - 1);
    expect(dep.typeInfo.deprecationDate).toBeLessThanOrEqual(Date.now() / 1000 + 1);
    await expect(call(k.deprecate, { domain, [k.field]: t })).rejects.toMatchObject({ name: 'TypeDeprecatedFault' });

    await call(k.undeprecate, { domain, [k.field]: t });
    const back = await call(k.describe, { domain, [k.field]: t });
    expect(back.typeInfo.status).toBe('REGISTERED');
    expect(back.typeInfo.deprecationDate).toBeUndefined();
    await expect(call(k.undeprecate, { domain, [k.field]: t })).rejects.toMatchObject({ name: 'TypeAlreadyExistsFault' });

    await call(k.deprecate, { domain, [k.field]: t });
    await call(k.del, { domain, [k.field]: t });
    await expect(call(k.describe, { domain, [k.field]: t })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    await expect(call(k.del, { domain, [k.field]: t })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    await expect(call(k.deprecate, { domain, [k.field]: t })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    await expect(call(k.undeprecate, { domain, [k.field]: t })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    for (const status of ['REGISTERED', 'DEPRECATED']) {
      expect((await call(k.list, { domain, registrationStatus: status })).typeInfos).toEqual([]);
    }
  });

  it('answers UnknownResourceFault for an unknown type', async () => {
    const domain = await newDomain(`${k.kind}-unknown`);
    await call(k.register, { domain, name: 'known', version: '1' });
    for (const t of [{ name: 'known', version: '2' }, { name: 'other', version: '1' }]) {
      await expect(call(k.describe, { domain, [k.field]: t })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
      await expect(call(k.deprecate, { domain, [k.field]: t })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    }
  });
});

describe('StartWorkflowExecution against the registry', () => {
  const FULL = { defaultTaskList: { name: 'deciders' }, defaultExecutionStartToCloseTimeout: '3600', defaultTaskStartToCloseTimeout: '30', defaultChildPolicy: 'TERMINATE' };

  it('refuses a deprecated type with TypeDeprecatedFault, and accepts it again once undeprecated', async () => {
    const domain = await newDomain('start-dep');
    const workflowType = { name: 'wf', version: '1' };
    await call('RegisterWorkflowType', { domain, ...workflowType, ...FULL });
    await call('DeprecateWorkflowType', { domain, workflowType });
    await expect(call('StartWorkflowExecution', { domain, workflowId: 'w1', workflowType })).rejects.toMatchObject({ name: 'TypeDeprecatedFault' });
    await call('UndeprecateWorkflowType', { domain, workflowType });
    const { runId } = await call('StartWorkflowExecution', { domain, workflowId: 'w1', workflowType });
    expect(typeof runId).toBe('string');
  });

  it('refuses an unknown or deleted type with UnknownResourceFault', async () => {
    const domain = await newDomain('start-unknown');
    const workflowType = { name: 'wf', version: '1' };
    await expect(call('StartWorkflowExecution', { domain, workflowId: 'w1', workflowType })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    await call('RegisterWorkflowType', { domain, ...workflowType, ...FULL });
    await call('DeprecateWorkflowType', { domain, workflowType });
    await call('DeleteWorkflowType', { domain, workflowType });
    await expect(call('StartWorkflowExecution', { domain, workflowId: 'w1', workflowType })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
  });

  it('answers DefaultUndefinedFault for each setting that neither the call nor the type provides', async () => {
    const domain = await newDomain('start-defaults');
    const workflowType = { name: 'bare', version: '1' };
    await call('RegisterWorkflowType', { domain, ...workflowType });
    const given: Obj = {};
    const steps: [string, Obj][] = [
      ['taskList', { taskList: { name: 'deciders' } }],
      ['executionStartToCloseTimeout', { executionStartToCloseTimeout: '3600' }],
      ['taskStartToCloseTimeout', { taskStartToCloseTimeout: '30' }],
      ['childPolicy', { childPolicy: 'REQUEST_CANCEL' }],
    ];
    for (const [field, value] of steps) {
      await expect(call('StartWorkflowExecution', { domain, workflowId: 'w1', workflowType, ...given }), field)
        .rejects.toMatchObject({ name: 'DefaultUndefinedFault', message: expect.stringContaining(field) });
      Object.assign(given, value);
    }
    const { runId } = await call('StartWorkflowExecution', { domain, workflowId: 'w1', workflowType, ...given });
    const d = await call('DescribeWorkflowExecution', { domain, execution: { workflowId: 'w1', runId } });
    expect(d.executionConfiguration).toMatchObject({
      taskList: { name: 'deciders' }, executionStartToCloseTimeout: '3600', taskStartToCloseTimeout: '30', childPolicy: 'REQUEST_CANCEL',
    });
  });

  it('fills each missing setting from the type defaults; values on the call win', async () => {
    const domain = await newDomain('start-fill');
    const workflowType = { name: 'full', version: '1' };
    await call('RegisterWorkflowType', { domain, ...workflowType, ...FULL, defaultTaskPriority: '7' });
    const a = await call('StartWorkflowExecution', { domain, workflowId: 'a', workflowType });
    expect((await call('DescribeWorkflowExecution', { domain, execution: { workflowId: 'a', runId: a.runId } })).executionConfiguration).toMatchObject({
      taskList: { name: 'deciders' }, executionStartToCloseTimeout: '3600', taskStartToCloseTimeout: '30', childPolicy: 'TERMINATE', taskPriority: '7',
    });
    const b = await call('StartWorkflowExecution', { domain, workflowId: 'b', workflowType, taskList: { name: 'other' }, childPolicy: 'ABANDON', taskStartToCloseTimeout: 'NONE' });
    expect((await call('DescribeWorkflowExecution', { domain, execution: { workflowId: 'b', runId: b.runId } })).executionConfiguration).toMatchObject({
      taskList: { name: 'other' }, executionStartToCloseTimeout: '3600', taskStartToCloseTimeout: 'NONE', childPolicy: 'ABANDON',
    });
  });
});

describe('unknown executions', () => {
  it('answers UnknownResourceFault for Describe and GetWorkflowExecutionHistory of a run that does not exist', async () => {
    const domain = await newDomain('exec-unknown');
    const workflowType = { name: 'wf', version: '1' };
    await call('RegisterWorkflowType', { domain, ...workflowType, defaultTaskList: { name: 'd' }, defaultExecutionStartToCloseTimeout: '60', defaultTaskStartToCloseTimeout: '10', defaultChildPolicy: 'TERMINATE' });
    const { runId } = await call('StartWorkflowExecution', { domain, workflowId: 'real', workflowType });
    const unknown = [
      { workflowId: 'never-started', runId },
      { workflowId: 'real', runId: 'f'.repeat(32) },
      { workflowId: 'never-started', runId: 'x' },
    ];
    for (const execution of unknown) {
      await expect(call('DescribeWorkflowExecution', { domain, execution })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
      await expect(call('GetWorkflowExecutionHistory', { domain, execution })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    }
    // The real run is visible, but not from another domain.
    expect((await call('DescribeWorkflowExecution', { domain, execution: { workflowId: 'real', runId } })).executionInfo.executionStatus).toBe('OPEN');
    const other = await newDomain('exec-other');
    await expect(call('DescribeWorkflowExecution', { domain: other, execution: { workflowId: 'real', runId } })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
    await expect(call('GetWorkflowExecutionHistory', { domain: other, execution: { workflowId: 'real', runId } })).rejects.toMatchObject({ name: 'UnknownResourceFault' });
  });
});
