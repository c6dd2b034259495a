import {
  CountOpenWorkflowExecutionsCommand, DescribeDomainCommand, GetWorkflowExecutionHistoryCommand, ListDomainsCommand,
  ListTagsForResourceCommand, PollForDecisionTaskCommand, RegisterDomainCommand, RegisterWorkflowTypeCommand,
  RespondDecisionTaskCompletedCommand, StartWorkflowExecutionCommand, SWFServiceException, TagResourceCommand, type SWFClient,
} from '@aws-sdk/client-swf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessKeysFromEnv, parseAccessKeys } from '../../src/transport/access-keys.js';
import { resolveHttpOptions } from '../../src/transport/http-options.js';
import { startTestEngine, uniqueDomain, type TestEngine } from '../helpers/engine.js';
import { rawCall, REGION, swfClient } from '../helpers/swf-http.js';

const ALPHA = uniqueDomain('alpha');
const BETA = uniqueDomain('beta');
const GAMMA = uniqueDomain('gamma');
const FULL = { accessKeyId: 'AKIDFULL', secretAccessKey: 'full-secret' };
const LIMITED = { accessKeyId: 'AKIDLIMITED', secretAccessKey: 'limited-secret' };
const STAR = { accessKeyId: 'AKIDSTAR', secretAccessKey: 'star-secret' };
const WF = { name: 'wf', version: '1' };
const arn = (domain: string) => `arn:aws:swf:${REGION}:000000000000:/domain/${domain}`;

let e: TestEngine;
let full: SWFClient;
let limited: SWFClient;
beforeAll(async () => {
  const keys = parseAccessKeys(`${FULL.accessKeyId}:${FULL.secretAccessKey}
${LIMITED.accessKeyId}:${LIMITED.secretAccessKey}:${ALPHA}|${BETA}
${STAR.accessKeyId}:${STAR.secretAccessKey}:*`, 'test keys');
  e = await startTestEngine({ http: { port: 0, accessKeys: keys } });
  full = swfClient(e.node.http!.port, FULL);
  limited = swfClient(e.node.http!.port, LIMITED);
  await full.send(new RegisterDomainCommand({ name: GAMMA, workflowExecutionRetentionPeriodInDays: '1' }));
  for (const domain of [GAMMA]) {
    await full.send(new RegisterWorkflowTypeCommand({
      domain, ...WF, defaultTaskList: { name: 'tl' }, defaultChildPolicy: 'TERMINATE',
      defaultExecutionStartToCloseTimeout: '600', defaultTaskStartToCloseTimeout: '60',
    }));
  }
});
afterAll(async () => {
  full?.destroy();
  limited?.destroy();
  await e?.stop();
});

/** The fault a call ends with: AWS name and HTTP status, as the SDK reports them. */
async function refused(client: SWFClient, command: object): Promise<{ name: string; status?: number; message: string }> {
  try {
    await client.send(command as never);
  } catch (err) {
    expect(err).toBeInstanceOf(SWFServiceException);
    const x = err as SWFServiceException;
    return { name: x.name, status: x.$metadata.httpStatusCode, message: x.message };
  }
  throw new Error('expected the call to be refused');
}

const NOT_PERMITTED = { name: 'OperationNotPermittedFault', status: 400 };

describe('access keys limited to domains (HTTP gateway)', () => {
  it('registers and lists only listed domains; another domain is refused and left untouched', async () => {
    await limited.send(new RegisterDomainCommand({ name: ALPHA, workflowExecutionRetentionPeriodInDays: '1' }));
    const other = uniqueDomain('other');
    expect(await refused(limited, new RegisterDomainCommand({ name: other, workflowExecutionRetentionPeriodInDays: '1' })))
      .toMatchObject({ ...NOT_PERMITTED, message: expect.stringContaining(`swf:RegisterDomain on resource: ${arn(other)}`) });
    expect(await refused(full, new DescribeDomainCommand({ name: other }))).toMatchObject({ name: 'UnknownResourceFault' });
    expect(await refused(limited, new DescribeDomainCommand({ name: GAMMA }))).toMatchObject(NOT_PERMITTED);
    expect((await limited.send(new DescribeDomainCommand({ name: ALPHA }))).domainInfo?.name).toBe(ALPHA);

    const names = async (c: SWFClient) => ((await c.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' }))).domainInfos ?? []).map((d) => d.name);
    expect(await names(limited)).toEqual([ALPHA]);
    expect(await names(full)).toEqual(expect.arrayContaining([ALPHA, GAMMA]));
    // Paging runs over the allowed domains only.
    const page = await limited.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED', maximumPageSize: 1 }));
    expect([page.domainInfos?.map((d) => d.name), page.nextPageToken]).toEqual([[ALPHA], undefined]);
  });

  it('runs a workflow in a listed domain and refuses starts, histories and task tokens of another', async () => {
    await limited.send(new RegisterWorkflowTypeCommand({
      domain: ALPHA, ...WF, defaultTaskList: { name: 'tl' }, defaultChildPolicy: 'TERMINATE',
      defaultExecutionStartToCloseTimeout: '600', defaultTaskStartToCloseTimeout: '60',
    }));
    const mine = await limited.send(new StartWorkflowExecutionCommand({ domain: ALPHA, workflowId: 'w', workflowType: WF }));
    const task = await limited.send(new PollForDecisionTaskCommand({ domain: ALPHA, taskList: { name: 'tl' }, identity: 'limited' }));
    expect(task.workflowExecution).toEqual({ workflowId: 'w', runId: mine.runId });
    await limited.send(new RespondDecisionTaskCompletedCommand({
      taskToken: task.taskToken!, decisions: [{ decisionType: 'CompleteWorkflowExecution', completeWorkflowExecutionDecisionAttributes: { result: 'ok' } }],
    }));
    const history = await limited.send(new GetWorkflowExecutionHistoryCommand({ domain: ALPHA, execution: { workflowId: 'w', runId: mine.runId! } }));
    expect(history.events!.at(-1)!.eventType).toBe('WorkflowExecutionCompleted');

    expect(await refused(limited, new StartWorkflowExecutionCommand({ domain: GAMMA, workflowId: 'w', workflowType: WF }))).toMatchObject(NOT_PERMITTED);
    const theirs = await full.send(new StartWorkflowExecutionCommand({ domain: GAMMA, workflowId: 'w', workflowType: WF }));
    const gammaExecution = { workflowId: 'w', runId: theirs.runId! };
    expect(await refused(limited, new GetWorkflowExecutionHistoryCommand({ domain: GAMMA, execution: gammaExecution }))).toMatchObject(NOT_PERMITTED);
    expect(await refused(limited, new PollForDecisionTaskCommand({ domain: GAMMA, taskList: { name: 'tl' } }))).toMatchObject(NOT_PERMITTED);
    // A task token of GAMMA (handed over by someone with a full key) does not let the limited key answer it.
    const gammaTask = await full.send(new PollForDecisionTaskCommand({ domain: GAMMA, taskList: { name: 'tl' }, identity: 'full' }));
    expect(await refused(limited, new RespondDecisionTaskCompletedCommand({
      taskToken: gammaTask.taskToken!, decisions: [{ decisionType: 'CompleteWorkflowExecution' }],
    }))).toMatchObject(NOT_PERMITTED);
    const gammaHistory = await full.send(new GetWorkflowExecutionHistoryCommand({ domain: GAMMA, execution: gammaExecution }));
    expect(gammaHistory.events!.map((x) => x.eventType)).toEqual(['WorkflowExecutionStarted', 'DecisionTaskScheduled', 'DecisionTaskStarted']);
    // A request that names no domain is refused for a limited key (fail closed), not passed on.
    expect(await refused(limited, new CountOpenWorkflowExecutionsCommand({ startTimeFilter: { oldestDate: new Date(0) } } as never))).toMatchObject(NOT_PERMITTED);
  });

  it('checks the domain inside resource ARNs (TagResource, ListTagsForResource)', async () => {
    await limited.send(new TagResourceCommand({ resourceArn: arn(ALPHA), tags: [{ key: 'team', value: 'a' }] }));
    expect((await limited.send(new ListTagsForResourceCommand({ resourceArn: arn(ALPHA) }))).tags).toEqual([{ key: 'team', value: 'a' }]);
    expect(await refused(limited, new TagResourceCommand({ resourceArn: arn(GAMMA), tags: [{ key: 'team', value: 'x' }] }))).toMatchObject(NOT_PERMITTED);
    expect(await refused(limited, new ListTagsForResourceCommand({ resourceArn: arn(GAMMA) }))).toMatchObject(NOT_PERMITTED);
    expect(await refused(limited, new ListTagsForResourceCommand({ resourceArn: 'arn:aws:swf:eu-west-1:1:/domain/x' }))).toMatchObject(NOT_PERMITTED);
    expect((await full.send(new ListTagsForResourceCommand({ resourceArn: arn(GAMMA) }))).tags).toEqual([]);
  });

  it('refuses Step Functions to a domain-limited key (AccessDeniedException) unless its list holds *', async () => {
    const port = e.node.http!.port;
    const call = (sign: typeof FULL) => rawCall(port, { target: 'AWSStepFunctions.ListActivities', body: '{}', sign: { ...sign, service: 'states' } });
    const denied = await call(LIMITED);
    expect({ status: denied.status, type: denied.json.__type }).toEqual({ status: 400, type: 'AccessDeniedException' });
    expect(denied.json.message).toContain(`User: ${LIMITED.accessKeyId} is not authorized to perform: states:ListActivities`);
    for (const key of [FULL, STAR]) expect((await call(key)).json?.__type).not.toBe('AccessDeniedException');
    // `*` also opens every SWF domain.
    expect((await swfClientDescribe(STAR, GAMMA))).toBe(GAMMA);
  });
});

async function swfClientDescribe(key: typeof FULL, domain: string): Promise<string | undefined> {
  const c = swfClient(e.node.http!.port, key);
  try {
    return (await c.send(new DescribeDomainCommand({ name: domain }))).domainInfo?.name;
  } finally {
    c.destroy();
  }
}

describe('AF_ACCESS_KEYS domain lists', () => {
  it('parses AKID:SECRET:domainA|domainB, keeps keys without a list unrestricted, and refuses bad lists without echoing secrets', () => {
    const keys = accessKeysFromEnv({ AF_ACCESS_KEYS: 'AK1:s1, AK2:s2:orders|billing ,AK3:s3:*' });
    expect([...keys]).toEqual([['AK1', 's1'], ['AK2', 's2'], ['AK3', 's3']]);
    expect([...keys.domains].map(([id, d]) => [id, [...d]])).toEqual([['AK2', ['orders', 'billing']], ['AK3', ['*']]]);
    expect(resolveHttpOptions({}, { AF_ACCESS_KEYS: 'AK2:s2:orders' }).accessDomains.get('AK2')).toEqual(new Set(['orders']));
    expect(() => parseAccessKeys('AK:topsecret:orders|', 'X')).toThrow('X: entry 1 (AK): domain "" is empty');
    expect(() => parseAccessKeys('AK:topsecret:a/b', 'X')).toThrow(/domain "a\/b" must not contain a colon, slash/);
    expect(() => parseAccessKeys('AK:top:secret:orders', 'X')).toThrow(/entry 1 is not AKID:SECRET or AKID:SECRET:domain/);
    expect(() => parseAccessKeys('AK:top:secret:orders', 'X')).not.toThrow(/top|secret:orders/);
  });
});
