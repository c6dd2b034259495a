import { readFile } from 'node:fs/promises';
import { parseDefinition } from '../sfn/asl/validate-definition.js';
import { compileStateMachine } from '../sfn/compile/compile-state-machine.js';

/** The XState definition (`machine.toJSON()`) compiled from a States Language file, as pretty JSON. */
export async function compiledDefinitionJson(file: string): Promise<string> {
  const text = await readFile(file, 'utf8');
  const { machine } = compileStateMachine(parseDefinition(text), { clock: { now: () => Date.now() }, hooks: { record: () => undefined, used: () => 0, executionInput: () => null } });
  return `${JSON.stringify(machine.toJSON(), null, 2)}\n`;
}
