import { CreateStateMachineCommand, DescribeStateMachineCommand, InvalidDefinition, ListStateMachinesCommand, UpdateStateMachineCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { freshName, rejection, SFN_ROLE, sfnHttpEngineForFile } from '../helpers/sfn-http.js';
import { BAD_JSONATA, VALID_JSONATA } from '../helpers/sfn-jsonata-definitions.js';

/*
 * JSONata and variable definitions through @aws-sdk/client-sfn against a real engine: every
 * mistake is an InvalidDefinition naming AWS's code, message and path, and writes nothing; every
 * valid form (AWS's documented examples among them) is created and described back unchanged.
 */

const engine = sfnHttpEngineForFile();

const create = (name: string, definition: object) =>
  engine.sfn.send(new CreateStateMachineCommand({ name, roleArn: SFN_ROLE, definition: JSON.stringify(definition) }));

async function machineNames(): Promise<string[]> {
  return ((await engine.sfn.send(new ListStateMachinesCommand({ maxResults: 1000 }))).stateMachines ?? []).map((m) => m.name!);
}

describe('CreateStateMachine refuses JSONata and variable mistakes', () => {
  const refused: string[] = [];

  it.each(BAD_JSONATA)('%s', async (_what, definition, code, path, message) => {
    const name = freshName('bad');
    refused.push(name);
    const err = await rejection(create(name, definition));
    expect(err).toBeInstanceOf(InvalidDefinition);
    expect(err.message).toMatch(/^Invalid State Machine Definition: '/);
    expect(err.message).toContain(`${code}: ${message} at ${path}`);
  });

  it('wrote none of the refused state machines', async () => {
    expect(refused).toHaveLength(BAD_JSONATA.length);
    const names = new Set(await machineNames());
    expect(refused.filter((n) => names.has(n))).toEqual([]);
  });

  it('UpdateStateMachine with a refused definition leaves the state machine as it was', async () => {
    const { stateMachineArn } = await create(freshName('held'), VALID_JSONATA[0]![1]);
    const before = await engine.sfn.send(new DescribeStateMachineCommand({ stateMachineArn }));
    const [, definition, code, path, message] = BAD_JSONATA.find(([what]) => what.startsWith('an expression that does not parse'))!;
    const err = await rejection(engine.sfn.send(new UpdateStateMachineCommand({ stateMachineArn, definition: JSON.stringify(definition) })));
    expect(err).toBeInstanceOf(InvalidDefinition);
    expect(err.message).toContain(`${code}: ${message} at ${path}`);
    const after = await engine.sfn.send(new DescribeStateMachineCommand({ stateMachineArn }));
    expect({ definition: after.definition, revisionId: after.revisionId }).toEqual({ definition: before.definition, revisionId: before.revisionId });
  });
});

describe('CreateStateMachine accepts the JSONata and variable forms AWS documents', () => {
  it.each(VALID_JSONATA)('%s', async (_what, definition) => {
    const { stateMachineArn } = await create(freshName('ok'), definition);
    const d = await engine.sfn.send(new DescribeStateMachineCommand({ stateMachineArn }));
    expect(JSON.parse(d.definition!)).toEqual(definition);
  });
});
