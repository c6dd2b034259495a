import {
  CreateActivityCommand, CreateStateMachineAliasCommand, CreateStateMachineCommand, DescribeStateMachineAliasCommand, DescribeStateMachineCommand,
  DescribeStateMachineForExecutionCommand, ListStateMachineAliasesCommand, ListStateMachineVersionsCommand, ListTagsForResourceCommand,
  PublishStateMachineVersionCommand, StartExecutionCommand, UpdateStateMachineCommand,
} from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { useNodesOnOneNats } from '../helpers/engine.js';
import { freshName, restartSfnNode, SFN_ROLE, sfnClient, waitClosed } from '../helpers/sfn-http.js';

const env = useNodesOnOneNats();
const pass = (result: string) => JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Pass', Result: result, End: true } } });
const HTTP = { port: 0, accessKeys: {} };

describe('versions, aliases and tags across an engine restart', () => {
  it('are all there, and usable, on the node that comes after', async () => {
    const first = await env.startEngine({ http: HTTP });
    let sfn = sfnClient(first.http!.port);
    const { activityArn } = await sfn.send(new CreateActivityCommand({ name: freshName('rs'), tags: [{ key: 'kind', value: 'activity' }] }));
    const c = await sfn.send(new CreateStateMachineCommand({
      name: freshName('rs'), roleArn: SFN_ROLE, definition: pass('r1'), publish: true, versionDescription: 'one', tags: [{ key: 'kind', value: 'sm' }],
    }));
    const sm = c.stateMachineArn!;
    await sfn.send(new UpdateStateMachineCommand({ stateMachineArn: sm, definition: pass('r2') }));
    const v2 = await sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: sm }));
    const alias = await sfn.send(new CreateStateMachineAliasCommand({
      name: 'live', routingConfiguration: [{ stateMachineVersionArn: c.stateMachineVersionArn, weight: 100 }, { stateMachineVersionArn: v2.stateMachineVersionArn, weight: 0 }],
    }));
    ({ sfn } = await restartSfnNode(env, first, sfn, { http: HTTP }));
    try {
      expect((await sfn.send(new ListTagsForResourceCommand({ resourceArn: activityArn }))).tags).toEqual([{ key: 'kind', value: 'activity' }]);
      expect((await sfn.send(new ListTagsForResourceCommand({ resourceArn: sm }))).tags).toEqual([{ key: 'kind', value: 'sm' }]);
      const versions = await sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: sm }));
      expect(versions.stateMachineVersions!.map((v) => v.stateMachineVersionArn)).toEqual([`${sm}:2`, `${sm}:1`]);
      const v1 = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: `${sm}:1` }));
      expect({ def: v1.definition, desc: v1.description }).toEqual({ def: pass('r1'), desc: 'one' });
      const a = await sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: alias.stateMachineAliasArn }));
      expect(a.routingConfiguration!.map((r) => r.weight)).toEqual([100, 0]);
      expect((await sfn.send(new ListStateMachineAliasesCommand({ stateMachineArn: sm }))).stateMachineAliases!.length).toBe(1);
      // The counter survived too: the next version is 3, never a second 2.
      await sfn.send(new UpdateStateMachineCommand({ stateMachineArn: sm, definition: pass('r3') }));
      expect((await sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: sm }))).stateMachineVersionArn).toBe(`${sm}:3`);
      const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: alias.stateMachineAliasArn }));
      const d = await waitClosed(sfn, executionArn!);
      expect({ out: d.output, v: d.stateMachineVersionArn, a: d.stateMachineAliasArn }).toEqual({ out: '"r1"', v: `${sm}:1`, a: alias.stateMachineAliasArn });
      expect((await sfn.send(new DescribeStateMachineForExecutionCommand({ executionArn }))).definition).toBe(pass('r1'));
    } finally {
      sfn.destroy();
    }
  }, 60_000);
});
