import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ROOT, runCliProcess } from '../helpers/cli-process.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';

const run = promisify(execFile);
let e: TestEngine;
let dir: string;
let historyFile: string;
const EXAMPLE = 'examples/workflows-as-code/order.ts';
const CHANGED = 'test/fixtures/changed-order-workflow.ts';

beforeAll(async () => {
  e = await startTestEngine();
  dir = await mkdtemp(join(tmpdir(), 'af-replay-'));
  // The example itself records a run (and is thereby run by a test).
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/workflows-as-code/main.ts'], { cwd: ROOT, env: { ...process.env, NATS_URL: e.url, DOMAIN: 'replay-cli' }, timeout: 50_000 });
  expect(stdout).toMatch(/: COMPLETED\n/);
}, 60_000);
afterAll(async () => {
  await e?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('actorflow replay', () => {
  it('records a run with the example, then replays its saved history through the same code: OK', async () => {
    const list = await e.client.call<{ executionInfos: Array<{ execution: { workflowId: string; runId: string } }> }>('ListClosedWorkflowExecutions', { domain: 'replay-cli', startTimeFilter: { oldestDate: 0 } });
    expect(list.executionInfos).toHaveLength(1);
    const events = await e.client.history('replay-cli', list.executionInfos[0]!.execution);
    expect(events).toHaveLength(29);
    historyFile = join(dir, 'history.json');
    await writeFile(historyFile, JSON.stringify({ events }));
    const r = await runCliProcess(['replay', '--workflow', EXAMPLE, '--history', historyFile]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^OK OrderFulfillment 1\.0: 29 events replayed, the code makes the recorded decisions/);
  });

  it('reports the first divergence of a changed workflow with exit code 3', async () => {
    const r = await runCliProcess(['replay', '--workflow', CHANGED, '--history', historyFile, '--json']);
    expect(r.code, r.stderr).toBe(3);
    const out = JSON.parse(r.stdout) as { ok: boolean; divergence: { commandIndex: number; command: { id: string }; event: { id: string } } };
    expect(out.ok).toBe(false);
    expect(out.divergence).toMatchObject({ commandIndex: 0, command: { id: 'ChargeCreditCard-1' }, event: { id: 'VerifyOrder-1' } });
  });

  it('reads the history from a running engine', async () => {
    const list = await e.client.call<{ executionInfos: Array<{ execution: { workflowId: string } }> }>('ListClosedWorkflowExecutions', { domain: 'replay-cli', startTimeFilter: { oldestDate: 0 } });
    const r = await runCliProcess(['replay', '--workflow', EXAMPLE, '--domain', 'replay-cli', '--workflow-id', list.executionInfos[0]!.execution.workflowId, '--nats', e.url]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^OK /);
  });

  it('refuses bad usage and an unreadable history', async () => {
    const both = await runCliProcess(['replay', '--workflow', EXAMPLE]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give either --history FILE or --domain D --workflow-id W/);
    const missing = await runCliProcess(['replay', '--workflow', EXAMPLE, '--history', join(dir, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^ERROR cannot read the history/m);
    const noWorkflow = await runCliProcess(['replay', '--workflow', 'examples/workflows-as-code/main.ts.missing', '--history', historyFile]);
    expect(noWorkflow.code).toBe(1);
    expect(noWorkflow.stderr).toMatch(/cannot load/);
  });
});
