import { ListExecutionsCommand, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineNode } from '../../src/server.js';
import { executionArn } from '../../src/sfn/arns.js';
import { SFN_DOMAIN } from '../../src/sfn/kind/sfn-host.js';
import { useNodesOnOneNats } from '../helpers/engine.js';
import { createMachine, freshName, sfnClient, waitClosed } from '../helpers/sfn-http.js';

const env = useNodesOnOneNats();
let a: EngineNode;
let b: EngineNode;
let sfn: SFNClient;
beforeAll(async () => {
  // Two nodes, each owning half the partitions; requests enter through a's gateway.
  a = await env.startEngine({ ownPartitions: [0, 1], nodeName: 'a', http: { port: 0, accessKeys: {} } });
  b = await env.startEngine({ ownPartitions: [2, 3], nodeName: 'b' });
  sfn = sfnClient(a.http!.port);
});
afterAll(() => sfn?.destroy());

/** A name whose execution of `stateMachineName` lives on a partition `owned` accepts. */
function nameOn(stateMachineName: string, owned: (p: number) => boolean): string {
  for (;;) {
    const name = freshName('x');
    if (owned(a.router.partitionOf(SFN_DOMAIN, executionArn(a.ctx, stateMachineName, name)))) return name;
  }
}

describe('a .sync child on another node than its parent', () => {
  it('wakes the parent (on a) when it closes on b', async () => {
    const childName = freshName('child');
    const child = await createMachine(sfn, { StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 1, Next: 'P' }, P: { Type: 'Pass', Result: 'done', End: true } } }, childName);
    const parentName = freshName('parent');
    const childRun = nameOn(childName, (p) => p >= 2);
    const parentSm = await createMachine(sfn, {
      StartAt: 'Child',
      States: { Child: { Type: 'Task', Resource: 'arn:aws:states:::states:startExecution.sync:2', Parameters: { StateMachineArn: child, Name: childRun }, End: true } },
    }, parentName);
    const run = nameOn(parentName, (p) => p <= 1);
    const { executionArn: parentArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: parentSm, name: run }));
    const d = await waitClosed(sfn, parentArn!, 20_000);
    expect({ status: d.status, output: JSON.parse(d.output!).Output }).toEqual({ status: 'SUCCEEDED', output: 'done' });
    const { executions } = await sfn.send(new ListExecutionsCommand({ stateMachineArn: child }));
    expect(executions!.map((e) => e.name)).toEqual([childRun]);
  }, 30_000);
});
