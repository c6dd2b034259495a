import {
  ConflictException, CreateStateMachineAliasCommand, CreateStateMachineCommand, DeleteStateMachineAliasCommand, DeleteStateMachineCommand,
  DeleteStateMachineVersionCommand, DescribeExecutionCommand, DescribeStateMachineAliasCommand, DescribeStateMachineForExecutionCommand,
  InvalidArn, ListExecutionsCommand, ListStateMachineAliasesCommand, ResourceNotFound, StartExecutionCommand, StateMachineDoesNotExist, UpdateStateMachineAliasCommand,
  UpdateStateMachineCommand, ValidationException, type SFNServiceException,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inParallel } from '../helpers/in-parallel.js';
import { freshName, fullHistory, rejection, SFN_ROLE, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';

let h: SfnHttpEngine;
beforeAll(async () => { h = await startSfnHttpEngine(); });
afterAll(async () => { await h?.stop(); });

const pass = (result: string) => JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Pass', Result: result, End: true } } });

async function expectFault(p: Promise<unknown>, cls: abstract new (...a: any[]) => SFNServiceException): Promise<any> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(cls);
  return err;
}

/** A state machine with versions 1 and 2 (definitions returning 'r1' and 'r2'). */
async function twoVersions() {
  const c = await h.sfn.send(new CreateStateMachineCommand({ name: freshName('al'), roleArn: SFN_ROLE, definition: pass('r1'), publish: true }));
  const u = await h.sfn.send(new UpdateStateMachineCommand({ stateMachineArn: c.stateMachineArn, definition: pass('r2'), publish: true }));
  return { sm: c.stateMachineArn!, v1: c.stateMachineVersionArn!, v2: u.stateMachineVersionArn! };
}

const route = (stateMachineVersionArn: string, weight: number) => ({ stateMachineVersionArn, weight });

describe('state machine aliases (AWS SDK)', () => {
  it('creates (idempotently), describes, updates, lists and deletes an alias', async () => {
    const { sm, v1, v2 } = await twoVersions();
    const a = await h.sfn.send(new CreateStateMachineAliasCommand({ name: 'live', description: 'prod', routingConfiguration: [route(v1, 100)] }));
    expect(a.stateMachineAliasArn).toBe(`${sm}:live`);
    const again = await h.sfn.send(new CreateStateMachineAliasCommand({ name: 'live', description: 'prod', routingConfiguration: [route(v1, 100)] }));
    expect({ arn: again.stateMachineAliasArn, at: again.creationDate?.getTime() }).toEqual({ arn: a.stateMachineAliasArn, at: a.creationDate!.getTime() });
    const other = await expectFault(h.sfn.send(new CreateStateMachineAliasCommand({ name: 'live', routingConfiguration: [route(v2, 100)] })), ConflictException);
    expect(other.message).toBe('Failed to create alias because an alias with the same name and a different routing configuration already exists.');

    const d = await h.sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: a.stateMachineAliasArn }));
    expect({ arn: d.stateMachineAliasArn, name: d.name, desc: d.description, routes: d.routingConfiguration, updated: d.updateDate })
      .toEqual({ arn: `${sm}:live`, name: 'live', desc: 'prod', routes: [route(v1, 100)], updated: undefined });

    const u = await h.sfn.send(new UpdateStateMachineAliasCommand({ stateMachineAliasArn: a.stateMachineAliasArn, routingConfiguration: [route(v1, 50), route(v2, 50)] }));
    expect(u.updateDate).toBeInstanceOf(Date);
    const d2 = await h.sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: a.stateMachineAliasArn }));
    expect({ desc: d2.description, routes: d2.routingConfiguration }).toEqual({ desc: 'prod', routes: [route(v1, 50), route(v2, 50)] });

    await h.sfn.send(new CreateStateMachineAliasCommand({ name: 'beta', routingConfiguration: [route(v2, 100)] }));
    const list = await h.sfn.send(new ListStateMachineAliasesCommand({ stateMachineArn: sm }));
    expect(list.stateMachineAliases!.map((x) => x.stateMachineAliasArn)).toEqual([`${sm}:beta`, `${sm}:live`]);
    const ofV1 = await h.sfn.send(new ListStateMachineAliasesCommand({ stateMachineArn: v1 }));
    expect(ofV1.stateMachineAliases!.map((x) => x.stateMachineAliasArn)).toEqual([`${sm}:live`]);

    await h.sfn.send(new DeleteStateMachineAliasCommand({ stateMachineAliasArn: `${sm}:beta` }));
    await h.sfn.send(new DeleteStateMachineAliasCommand({ stateMachineAliasArn: `${sm}:beta` })); // gone: success
    await expectFault(h.sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: `${sm}:beta` })), ResourceNotFound);
    expect((await h.sfn.send(new ListStateMachineAliasesCommand({ stateMachineArn: sm }))).stateMachineAliases!.length).toBe(1);

    // DeleteStateMachine takes the aliases with it.
    await h.sfn.send(new DeleteStateMachineCommand({ stateMachineArn: sm }));
    await expectFault(h.sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: a.stateMachineAliasArn })), ResourceNotFound);
  });

  it('refuses to delete a version an alias routes to, in AWS\'s words; once the alias moves, the delete goes through', async () => {
    const { v1, v2 } = await twoVersions();
    const a = await h.sfn.send(new CreateStateMachineAliasCommand({ name: 'prod', routingConfiguration: [route(v1, 90), route(v2, 10)] }));
    const err = await expectFault(h.sfn.send(new DeleteStateMachineVersionCommand({ stateMachineVersionArn: v1 })), ConflictException);
    expect(err.message).toBe('Version to be deleted must not be referenced by an alias. Current list of aliases referencing this version: [prod]');
    expect(err.$metadata.httpStatusCode).toBe(409);
    await h.sfn.send(new UpdateStateMachineAliasCommand({ stateMachineAliasArn: a.stateMachineAliasArn, routingConfiguration: [route(v2, 100)] }));
    await h.sfn.send(new DeleteStateMachineVersionCommand({ stateMachineVersionArn: v1 }));
  });

  it('an execution started through an alias runs the version it routes to and says so', async () => {
    const { sm, v1, v2 } = await twoVersions();
    const a = await h.sfn.send(new CreateStateMachineAliasCommand({ name: 'one', routingConfiguration: [route(v1, 100), route(v2, 0)] }));
    const { executionArn } = await h.sfn.send(new StartExecutionCommand({ stateMachineArn: a.stateMachineAliasArn, input: '{}' }));
    expect(executionArn).toMatch(new RegExp(`:execution:${sm.split(':').at(-1)}:`));
    const d = await waitClosed(h.sfn, executionArn!);
    expect({ out: d.output, sm: d.stateMachineArn, v: d.stateMachineVersionArn, a: d.stateMachineAliasArn })
      .toEqual({ out: '"r1"', sm, v: v1, a: a.stateMachineAliasArn });
    const started = (await fullHistory(h.sfn, executionArn!))[0]!;
    expect(started.executionStartedEventDetails).toMatchObject({ stateMachineAliasArn: a.stateMachineAliasArn, stateMachineVersionArn: v1, roleArn: SFN_ROLE });
    const forExec = await h.sfn.send(new DescribeStateMachineForExecutionCommand({ executionArn }));
    expect({ arn: forExec.stateMachineArn, def: forExec.definition }).toEqual({ arn: sm, def: pass('r1') });
    await expectFault(h.sfn.send(new StartExecutionCommand({ stateMachineArn: `${sm}:nosuch` })), StateMachineDoesNotExist);
    // ListExecutions of the state machine shows how it was started; of an alias or version, only what went through it.
    const { executionArn: plain } = await h.sfn.send(new StartExecutionCommand({ stateMachineArn: sm }));
    await waitClosed(h.sfn, plain!);
    const listed = async (stateMachineArn: string) => ((await h.sfn.send(new ListExecutionsCommand({ stateMachineArn }))).executions ?? [])
      .map((x) => ({ arn: x.executionArn, sm: x.stateMachineArn, v: x.stateMachineVersionArn, a: x.stateMachineAliasArn }));
    const viaAlias = { arn: executionArn, sm, v: v1, a: a.stateMachineAliasArn };
    expect(await listed(sm)).toEqual([{ arn: plain, sm, v: undefined, a: undefined }, viaAlias]);
    expect(await listed(a.stateMachineAliasArn!)).toEqual([viaAlias]);
    expect(await listed(v1)).toEqual([viaAlias]);
    expect(await listed(v2)).toEqual([]);
    await expectFault(h.sfn.send(new ListExecutionsCommand({ stateMachineArn: `${sm}:nosuch` })), StateMachineDoesNotExist);
  });

  it('an alias routing 80/20 between two versions over 500 starts lands within ±5 %', async () => {
    const { v1, v2 } = await twoVersions();
    const a = await h.sfn.send(new CreateStateMachineAliasCommand({ name: 'canary', routingConfiguration: [route(v1, 80), route(v2, 20)] }));
    const arns: string[] = [];
    await inParallel(Array.from({ length: 500 }, (_, i) => i), 16, async () => {
      arns.push((await h.sfn.send(new StartExecutionCommand({ stateMachineArn: a.stateMachineAliasArn }))).executionArn!);
    });
    const versions: (string | undefined)[] = [];
    await inParallel(arns, 16, async (executionArn) => {
      versions.push((await h.sfn.send(new DescribeExecutionCommand({ executionArn }))).stateMachineVersionArn);
    });
    expect(versions.length).toBe(500);
    const onV1 = versions.filter((v) => v === v1).length;
    expect(versions.filter((v) => v !== v1 && v !== v2)).toEqual([]);
    expect(onV1).toBeGreaterThanOrEqual(375);
    expect(onV1).toBeLessThanOrEqual(425);
  }, 120_000);

  it('answers bad input with AWS\'s faults and changes nothing', async () => {
    const { sm, v1, v2 } = await twoVersions();
    const create = (name: string, routingConfiguration: { stateMachineVersionArn: string; weight: number }[]) =>
      h.sfn.send(new CreateStateMachineAliasCommand({ name, routingConfiguration }));
    const msg = async (p: Promise<unknown>) => (await expectFault(p, ValidationException)).message as string;
    expect(await msg(create('a', [route(v1, 70), route(v2, 29)]))).toBe('Sum of routing configuration weights must equal 100. Received: [70, 29]');
    expect(await msg(create('a', [route(v1, 50), route(v1, 50)]))).toBe(`Routing configuration must contain distinct state machine version ARNs. Received: [${v1}, ${v1}]`);
    expect(await msg(create('a', [route(sm, 100)]))).toBe(`Routing configuration must contain state machine version ARNs. Received: [${sm}]`);
    expect(await msg(create('a', [route(v1, 50), route(v2, 30), route(`${sm}:3`, 20)]))).toMatch(/at 'routingConfiguration' failed to satisfy constraint: Member must have length less than or equal to 2$/);
    expect(await msg(create('a', [route(v1, 101)]))).toBe("1 validation error detected: Value '101' at 'routingConfiguration.1.member.weight' failed to satisfy constraint: Member must have value less than or equal to 100");
    for (const name of ['123', 'INVALID ALIAS', '!x', 'A'.repeat(81)]) await msg(create(name, [route(v1, 100)]));
    await expectFault(create('a', [route(`${sm}:9`, 100)]), ResourceNotFound);
    await expectFault(h.sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: `${sm}:none` })), ResourceNotFound);
    const missing = await expectFault(h.sfn.send(new UpdateStateMachineAliasCommand({ stateMachineAliasArn: `${sm}:none`, description: 'x' })), ResourceNotFound);
    expect(missing.message).toBe('Request references a resource that does not exist.');
    for (const bad of ['nope', sm, v1]) {
      await expectFault(h.sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: bad })), InvalidArn);
      await expectFault(h.sfn.send(new DeleteStateMachineAliasCommand({ stateMachineAliasArn: bad })), InvalidArn);
    }
    const a = await create('ok', [route(v1, 100)]);
    await expectFault(h.sfn.send(new UpdateStateMachineAliasCommand({ stateMachineAliasArn: a.stateMachineAliasArn })), ValidationException);
    await expectFault(h.sfn.send(new UpdateStateMachineAliasCommand({ stateMachineAliasArn: a.stateMachineAliasArn, routingConfiguration: [route(v1, 60)] })), ValidationException);
    const d = await h.sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: a.stateMachineAliasArn }));
    expect(d.routingConfiguration).toEqual([route(v1, 100)]);
    expect((await h.sfn.send(new ListStateMachineAliasesCommand({ stateMachineArn: sm }))).stateMachineAliases!.map((x) => x.stateMachineAliasArn)).toEqual([`${sm}:ok`]);
    await expectFault(h.sfn.send(new ListStateMachineAliasesCommand({ stateMachineArn: `${sm}x` })), StateMachineDoesNotExist);
  });
});
