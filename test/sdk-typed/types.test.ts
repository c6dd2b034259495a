import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The typed client is checked by the compiler: a file using it is compiled (the TypeScript API, no
 * emit) against src/index.ts, once as written and once with a mistake.
 */
const INDEX = fileURLToPath(new URL('../../src/index.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'actorflow-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Compiles every case in one program (loading the SDK's types once); the messages of each case. */
function diagnostics(cases: Record<string, string>): Record<string, string> {
  const files = Object.fromEntries(Object.entries(cases).map(([name, body]) => {
    const file = join(dir, `${name}.ts`);
    writeFileSync(file, `import { ActorFlowClient, decisions, type Swf } from ${JSON.stringify(INDEX)};\n${body}\n`);
    return [name, file];
  }));
  const program = ts.createProgram(Object.values(files), {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true, noEmit: true, skipLibCheck: true, types: ['node'],
  });
  const all = ts.getPreEmitDiagnostics(program);
  return Object.fromEntries(Object.entries(files).map(([name, file]) => [name,
    all.filter((d) => d.file?.fileName === file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n')]));
}

const RIGHT = `
export async function f(client: ActorFlowClient) {
  const run = await client.swf.startWorkflowExecution({ domain: 'd', workflowId: 'w', workflowType: { name: 'n', version: '1' }, input: 'x' });
  const runId: string | undefined = run.runId;
  const x = await client.sfn.startExecution({ stateMachineArn: 'arn', input: '{}' });
  const started: number | undefined = x.startDate;
  const task: Swf.DecisionTask = await client.swf.pollForDecisionTask({ domain: 'd', taskList: { name: 'l' }, afPollTimeoutMs: 1000 });
  const d: Swf.Decision = decisions.startTimer('t', 30);
  return [runId, started, task, d];
}`;

const c = (call: string) => `export const f = (c: ActorFlowClient) => c.${call};`;
const CASES = {
  right: RIGHT,
  wrongMember: c(`swf.startWorkflowExecution({ domain: 'd', workflowId: 'w', workflowType: { name: 'n', version: '1' }, inptu: 'x' })`),
  wrongType: c('sfn.startExecution({ stateMachineArn: 42 })'),
  missingMember: c(`swf.startWorkflowExecution({ domain: 'd', workflowId: 'w' })`),
  unknownAction: c('swf.startWorkflowExecutions({})'),
};

describe('the typed client under the compiler', () => {
  let found: Record<string, string> = {};
  beforeAll(() => { found = diagnostics(CASES); }, 120_000);

  it('accepts inputs and outputs as the AWS service models have them', () => {
    expect(found.right).toBe('');
  });

  it('refuses a wrong member, a wrong member type, a missing required member and an unknown action', () => {
    expect(found.wrongMember).toMatch(/'inptu' does not exist in type 'StartWorkflowExecutionInput/);
    expect(found.wrongType).toMatch(/Type 'number' is not assignable to type 'string'/);
    expect(found.missingMember).toMatch(/Property 'workflowType' is missing/);
    expect(found.unknownAction).toMatch(/Property 'startWorkflowExecutions' does not exist/);
  });
});
