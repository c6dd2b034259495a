import {
  ConflictException, CreateStateMachineCommand, DeleteStateMachineCommand, DeleteStateMachineVersionCommand, DescribeExecutionCommand,
  DescribeStateMachineCommand, DescribeStateMachineForExecutionCommand, InvalidArn, InvalidToken, ListStateMachineVersionsCommand,
  PublishStateMachineVersionCommand, StartExecutionCommand, StateMachineDoesNotExist, UpdateStateMachineCommand, ValidationException,
  type SFNServiceException,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshName, rejection, SFN_ROLE, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';
import { REGION } from '../helpers/swf-http.js';

let h: SfnHttpEngine;
beforeAll(async () => { h = await startSfnHttpEngine(); });
afterAll(async () => { await h?.stop(); });

const ARN = `arn:aws:states:${REGION}:000000000000`;
const pass = (result: string) => JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Pass', Result: result, End: true } } });

async function expectFault(p: Promise<unknown>, cls: abstract new (...a: any[]) => SFNServiceException): Promise<any> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(cls);
  return err;
}

async function create(name = freshName('ver'), extra: object = {}) {
  return h.sfn.send(new CreateStateMachineCommand({ name, roleArn: SFN_ROLE, definition: pass('r1'), ...extra }));
}

async function runOutput(stateMachineArn: string) {
  const { executionArn } = await h.sfn.send(new StartExecutionCommand({ stateMachineArn }));
  const d = await waitClosed(h.sfn, executionArn!);
  return { d, output: JSON.parse(d.output!) as unknown };
}

describe('state machine versions (AWS SDK)', () => {
  it('publishes on create and update, numbers versions, lists newest first and describes each version', async () => {
    const name = freshName('ver');
    const c = await create(name, { publish: true, versionDescription: 'first' });
    expect(c.stateMachineArn).toBe(`${ARN}:stateMachine:${name}`);
    expect(c.stateMachineVersionArn).toBe(`${c.stateMachineArn}:1`);
    const u = await h.sfn.send(new UpdateStateMachineCommand({ stateMachineArn: c.stateMachineArn, definition: pass('r2'), publish: true }));
    expect(u.stateMachineVersionArn).toBe(`${c.stateMachineArn}:2`);
    expect(u.revisionId).toMatch(/^[0-9a-f-]{36}$/);
    // An update that changes nothing makes no revision; its publish gives the newest version again.
    const same = await h.sfn.send(new UpdateStateMachineCommand({ stateMachineArn: c.stateMachineArn, definition: pass('r2'), publish: true }));
    expect({ v: same.stateMachineVersionArn, r: same.revisionId }).toEqual({ v: `${c.stateMachineArn}:2`, r: undefined });

    const list = await h.sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: c.stateMachineArn }));
    expect(list.stateMachineVersions!.map((v) => v.stateMachineVersionArn)).toEqual([`${c.stateMachineArn}:2`, `${c.stateMachineArn}:1`]);
    expect(list.stateMachineVersions![0]!.creationDate).toBeInstanceOf(Date);

    const v1 = await h.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: c.stateMachineVersionArn }));
    expect({ arn: v1.stateMachineArn, name: v1.name, def: v1.definition, desc: v1.description, status: v1.status, type: v1.type })
      .toEqual({ arn: `${c.stateMachineArn}:1`, name, def: pass('r1'), desc: 'first', status: 'ACTIVE', type: 'STANDARD' });
    const latest = await h.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: c.stateMachineArn }));
    const v2 = await h.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: u.stateMachineVersionArn }));
    expect({ def: v2.definition, rev: v2.revisionId, desc: v2.description }).toEqual({ def: pass('r2'), rev: latest.revisionId, desc: undefined });
    expect(v1.revisionId).not.toBe(v2.revisionId);
  });

  it('PublishStateMachineVersion is idempotent for one revision and refuses a stale revisionId with AWS\'s text', async () => {
    const c = await create();
    const first = await h.sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: c.stateMachineArn, revisionId: 'INITIAL', description: 'd1' }));
    expect(first.stateMachineVersionArn).toBe(`${c.stateMachineArn}:1`);
    const again = await h.sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: c.stateMachineArn }));
    expect({ arn: again.stateMachineVersionArn, at: again.creationDate?.getTime() }).toEqual({ arn: first.stateMachineVersionArn, at: first.creationDate!.getTime() });
    const old = (await h.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: c.stateMachineArn }))).revisionId!;
    const u = await h.sfn.send(new UpdateStateMachineCommand({ stateMachineArn: c.stateMachineArn, definition: pass('r2') }));
    const err = await expectFault(h.sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: c.stateMachineArn, revisionId: old })), ConflictException);
    expect(err.message).toBe(`Failed to publish the State Machine version for revision ${old}. The current State Machine revision is ${u.revisionId}.`);
    await expectFault(h.sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: c.stateMachineArn, revisionId: 'INITIAL' })), ConflictException);
    const v2 = await h.sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: c.stateMachineArn, revisionId: u.revisionId }));
    expect(v2.stateMachineVersionArn).toBe(`${c.stateMachineArn}:2`);
  });

  it('concurrent publishes of one revision make one version', async () => {
    const c = await create();
    const all = await Promise.all(Array.from({ length: 6 }, () => h.sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: c.stateMachineArn }))));
    expect(new Set(all.map((v) => v.stateMachineVersionArn))).toEqual(new Set([`${c.stateMachineArn}:1`]));
    const list = await h.sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: c.stateMachineArn }));
    expect(list.stateMachineVersions!.map((v) => v.stateMachineVersionArn)).toEqual([`${c.stateMachineArn}:1`]);
  });

  it('an execution started through a version runs that version, not the latest revision', async () => {
    const c = await create(freshName('ver'), { publish: true });
    await h.sfn.send(new UpdateStateMachineCommand({ stateMachineArn: c.stateMachineArn, definition: pass('r2') }));
    const viaVersion = await runOutput(c.stateMachineVersionArn!);
    expect(viaVersion.output).toBe('r1');
    expect({ sm: viaVersion.d.stateMachineArn, v: viaVersion.d.stateMachineVersionArn, a: viaVersion.d.stateMachineAliasArn })
      .toEqual({ sm: c.stateMachineArn, v: c.stateMachineVersionArn, a: undefined });
    const latest = await runOutput(c.stateMachineArn!);
    expect({ out: latest.output, v: latest.d.stateMachineVersionArn }).toEqual({ out: 'r2', v: undefined });

    const forVersion = await h.sfn.send(new DescribeStateMachineForExecutionCommand({ executionArn: viaVersion.d.executionArn }));
    const v1 = await h.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: c.stateMachineVersionArn }));
    expect({ arn: forVersion.stateMachineArn, def: forVersion.definition, rev: forVersion.revisionId, role: forVersion.roleArn })
      .toEqual({ arn: c.stateMachineArn, def: pass('r1'), rev: v1.revisionId, role: SFN_ROLE });
    expect(forVersion.updateDate).toBeInstanceOf(Date);
  });

  it('deletes versions (idempotently) without ever reusing a number; DeleteStateMachine takes its versions along', async () => {
    const c = await create(freshName('ver'), { publish: true });
    await h.sfn.send(new UpdateStateMachineCommand({ stateMachineArn: c.stateMachineArn, definition: pass('r2'), publish: true }));
    await h.sfn.send(new DeleteStateMachineVersionCommand({ stateMachineVersionArn: `${c.stateMachineArn}:2` }));
    await h.sfn.send(new DeleteStateMachineVersionCommand({ stateMachineVersionArn: `${c.stateMachineArn}:2` })); // gone: success
    await expectFault(h.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: `${c.stateMachineArn}:2` })), StateMachineDoesNotExist);
    await expectFault(h.sfn.send(new StartExecutionCommand({ stateMachineArn: `${c.stateMachineArn}:2` })), StateMachineDoesNotExist);
    await h.sfn.send(new UpdateStateMachineCommand({ stateMachineArn: c.stateMachineArn, definition: pass('r3') }));
    const v3 = await h.sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: c.stateMachineArn }));
    expect(v3.stateMachineVersionArn).toBe(`${c.stateMachineArn}:3`);

    await h.sfn.send(new DeleteStateMachineCommand({ stateMachineArn: c.stateMachineArn }));
    await expectFault(h.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: c.stateMachineVersionArn })), StateMachineDoesNotExist);
    expect((await h.sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: c.stateMachineArn }))).stateMachineVersions).toEqual([]);
    // The same name again starts at version 1.
    const again = await create(c.stateMachineArn!.split(':').at(-1), { publish: true });
    expect(again.stateMachineVersionArn).toBe(`${c.stateMachineArn}:1`);
  });

  it('pages the version list with nextToken', async () => {
    const c = await create();
    for (let i = 2; i <= 4; i++) {
      await h.sfn.send(new UpdateStateMachineCommand({ stateMachineArn: c.stateMachineArn, definition: pass(`r${i}`), publish: true }));
    }
    const arns: string[] = [];
    let nextToken: string | undefined;
    do {
      const p = await h.sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: c.stateMachineArn, maxResults: 2, nextToken }));
      expect(p.stateMachineVersions!.length).toBeLessThanOrEqual(2);
      arns.push(...p.stateMachineVersions!.map((v) => v.stateMachineVersionArn!));
      nextToken = p.nextToken;
    } while (nextToken);
    expect(arns).toEqual([3, 2, 1].map((n) => `${c.stateMachineArn}:${n}`));
  });

  it('answers bad input with AWS\'s faults and publishes nothing', async () => {
    const c = await create();
    const sm = c.stateMachineArn!;
    const desc = await expectFault(h.sfn.send(new CreateStateMachineCommand({ name: freshName('ver'), roleArn: SFN_ROLE, definition: pass('x'), versionDescription: 'd' })),
      ValidationException);
    expect(desc.message).toBe('Version description can only be set when publish is true');
    await expectFault(h.sfn.send(new UpdateStateMachineCommand({ stateMachineArn: sm, definition: pass('y'), versionDescription: 'd' })), ValidationException);
    await expectFault(h.sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: sm, description: 'd'.repeat(257) })), ValidationException);
    await expectFault(h.sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: `${ARN}:stateMachine:${freshName('none')}` })), StateMachineDoesNotExist);
    for (const bad of ['nope', `${ARN}:activity:x`, `${sm}:1`, `${sm}:alias`]) {
      await expectFault(h.sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: bad })), InvalidArn);
      await expectFault(h.sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: bad })), InvalidArn);
    }
    for (const bad of ['nope', sm, `${sm}:0`, `${sm}:01`, `${sm}:alias`]) {
      await expectFault(h.sfn.send(new DeleteStateMachineVersionCommand({ stateMachineVersionArn: bad })), InvalidArn);
    }
    await expectFault(h.sfn.send(new DeleteStateMachineVersionCommand({} as any)), ValidationException);
    await expectFault(h.sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: sm, maxResults: 1001 })), ValidationException);
    await expectFault(h.sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: sm, nextToken: 'not-ours' })), InvalidToken);
    expect((await h.sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: sm }))).stateMachineVersions).toEqual([]);
  });

  it('DescribeExecution of a start through the plain ARN carries no version', async () => {
    const c = await create();
    const { executionArn } = await h.sfn.send(new StartExecutionCommand({ stateMachineArn: c.stateMachineArn }));
    await waitClosed(h.sfn, executionArn!);
    const d = await h.sfn.send(new DescribeExecutionCommand({ executionArn }));
    expect({ v: d.stateMachineVersionArn, a: d.stateMachineAliasArn }).toEqual({ v: undefined, a: undefined });
  });
});
