import { beforeAll, describe, expect, it } from 'vitest';
import type { ActorFlowClient } from '../../src/sdk/client.js';
import { freshName, SFN_ROLE } from '../helpers/sfn-http.js';
import { useNodesOnOneNats } from '../helpers/engine.js';
import { until } from '../helpers/until.js';

/* Variables live in the persisted snapshot: a node that takes an execution over continues with them. */

const env = useNodesOnOneNats();
const { nodes, startEngine } = env;
let client: ActorFlowClient;
beforeAll(() => { client = env.client; });

interface Ev { type: string; stateExitedEventDetails?: { name: string; assignedVariables?: Record<string, string> } }

describe('JSONata and variables across a node hand-over', () => {
  it('an execution taken over by a new node during a Wait keeps its variables, outer and Map-inner', async () => {
    const first = nodes[0] ?? await startEngine();
    const definition = {
      QueryLanguage: 'JSONata', StartAt: 'Init',
      States: {
        Init: { Type: 'Pass', Assign: { base: '{% $states.input.n %}', tag: 'kept' }, Next: 'Each' },
        Each: {
          Type: 'Map', Items: [1, 2], Next: 'Nap',
          ItemProcessor: { StartAt: 'Mine', States: { Mine: { Type: 'Pass', Assign: { mine: '{% $states.input * $base %}' }, Next: 'Out' }, Out: { Type: 'Pass', Output: '{% $mine %}', End: true } } },
          Assign: { parts: '{% $states.result %}' },
        },
        Nap: { Type: 'Wait', Seconds: 3, Assign: { waited: true }, Next: 'Done' },
        Done: { Type: 'Pass', Output: '{% { "sum": $sum($parts) + $base, "tag": $tag, "waited": $waited } %}', End: true },
      },
    };
    const { stateMachineArn } = await client.call<{ stateMachineArn: string }>('CreateStateMachine', { name: freshName('sm'), roleArn: SFN_ROLE, definition: JSON.stringify(definition) });
    const { executionArn } = await client.call<{ executionArn: string }>('StartExecution', { stateMachineArn, input: '{"n":10}' });
    const history = async () => (await client.call<{ events: Ev[] }>('GetExecutionHistory', { executionArn, maxResults: 1000 })).events;
    await until(async () => (await history()).some((e) => e.type === 'WaitStateEntered'), { timeoutMs: 10_000 });
    await first.stop();
    nodes.splice(nodes.indexOf(first), 1);
    await startEngine();
    const status = async () => client.call<{ status: string; output?: string }>('DescribeExecution', { executionArn });
    await until(async () => (await status()).status !== 'RUNNING', { timeoutMs: 15_000 });
    expect(await status()).toMatchObject({ status: 'SUCCEEDED', output: '{"sum":40,"tag":"kept","waited":true}' });
    const exited = (await history()).filter((e) => e.stateExitedEventDetails?.assignedVariables).map((e) => [e.stateExitedEventDetails!.name, e.stateExitedEventDetails!.assignedVariables]);
    expect(exited).toEqual([
      ['Init', { base: '10', tag: '"kept"' }], ['Mine', { mine: '10' }], ['Mine', { mine: '20' }], ['Each', { parts: '[10,20]' }], ['Nap', { waited: 'true' }],
    ]);
  });
});
