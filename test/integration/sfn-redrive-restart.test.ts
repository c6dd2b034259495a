import { GetActivityTaskCommand, RedriveExecutionCommand, SendTaskFailureCommand, SendTaskSuccessCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { useNodesOnOneNats } from '../helpers/engine.js';
import { fullHistory, machineWithActivity, restartSfnNode, sfnClient, waitClosed } from '../helpers/sfn-http.js';

const env = useNodesOnOneNats();
const HTTP = { port: 0, accessKeys: {} };

describe('a redriven execution across an engine restart', () => {
  it('goes on where it was on the node that comes after, its history in one stream', async () => {
    const first = await env.startEngine({ http: HTTP });
    let sfn = sfnClient(first.http!.port);
    const { activityArn, stateMachineArn } = await machineWithActivity(sfn, (a) => ({
      StartAt: 'Each',
      States: { Each: { Type: 'Map', MaxConcurrency: 1, ItemProcessor: { StartAt: 'Do', States: { Do: { Type: 'Task', Resource: a, End: true } } }, End: true } },
    }));
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(['a', 'b', 'c']) }));
    const take = async () => {
      const t = await sfn.send(new GetActivityTaskCommand({ activityArn }));
      return { token: t.taskToken!, input: JSON.parse(t.input!) as string };
    };
    // 'a' succeeds, 'b' fails the Map ('c' never started).
    await sfn.send(new SendTaskSuccessCommand({ taskToken: (await take()).token, output: '"A"' }));
    await sfn.send(new SendTaskFailureCommand({ taskToken: (await take()).token, error: 'Boom' }));
    expect((await waitClosed(sfn, executionArn!)).status).toBe('FAILED');
    await sfn.send(new RedriveExecutionCommand({ executionArn }));
    ({ sfn } = await restartSfnNode(env, first, sfn, { http: HTTP }));
    try {
      const seen: string[] = [];
      for (let i = 0; i < 2; i++) {
        const t = await take();
        seen.push(t.input);
        await sfn.send(new SendTaskSuccessCommand({ taskToken: t.token, output: JSON.stringify(t.input.toUpperCase()) }));
      }
      expect(seen).toEqual(['b', 'c']);
      const d = await waitClosed(sfn, executionArn!);
      expect({ status: d.status, output: JSON.parse(d.output!), redriveCount: d.redriveCount }).toEqual({ status: 'SUCCEEDED', output: ['A', 'B', 'C'], redriveCount: 1 });
      const events = await fullHistory(sfn, executionArn!);
      expect(events.map((e) => e.id)).toEqual(events.map((_e, i) => i + 1));
      expect(events.filter((e) => e.type === 'ActivityScheduled').length).toBe(4);
      expect(events.filter((e) => e.type === 'ExecutionRedriven').length).toBe(1);
    } finally {
      sfn.destroy();
    }
  }, 60_000);
});
