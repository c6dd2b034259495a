import { ListExecutionsCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { useNodesOnOneNats } from '../helpers/engine.js';
import { createMachine, sfnClient, waitClosed } from '../helpers/sfn-http.js';
import { until } from '../helpers/until.js';

const env = useNodesOnOneNats();
const HTTP = { port: 0, accessKeys: {} };

describe('a parent waiting on a .sync child across an engine restart', () => {
  it('finishes with the child\'s output on the node that comes after, with one child only', async () => {
    const first = await env.startEngine({ http: HTTP });
    let sfn = sfnClient(first.http!.port);
    const child = await createMachine(sfn, { StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 3, Next: 'P' }, P: { Type: 'Pass', Result: { slept: true }, End: true } } });
    const parentSm = await createMachine(sfn, {
      StartAt: 'Child',
      States: { Child: { Type: 'Task', Resource: 'arn:aws:states:::states:startExecution.sync:2', Parameters: { StateMachineArn: child, Input: {} }, End: true } },
    });
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: parentSm, input: '{}' }));
    await until(async () => ((await sfn.send(new ListExecutionsCommand({ stateMachineArn: child }))).executions ?? []).length === 1, { message: 'the child to start' });
    sfn.destroy();
    // The engine restarts while the parent waits: the next node invokes the task again and finds the same child.
    sfn = sfnClient((await env.replace(first, { http: HTTP })).http!.port);
    try {
      const d = await waitClosed(sfn, executionArn!, 30_000);
      expect(d.status).toBe('SUCCEEDED');
      expect(JSON.parse(d.output!)).toMatchObject({ Output: { slept: true }, Status: 'SUCCEEDED' });
      const { executions } = await sfn.send(new ListExecutionsCommand({ stateMachineArn: child }));
      expect(executions!.map((e) => e.status)).toEqual(['SUCCEEDED']);
    } finally {
      sfn.destroy();
    }
  }, 60_000);
});
