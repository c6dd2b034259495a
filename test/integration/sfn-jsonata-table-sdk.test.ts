import { CreateActivityCommand, CreateStateMachineCommand, DescribeExecutionCommand, GetActivityTaskCommand, GetExecutionHistoryCommand, SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../../src/testing/index.js';
import { SFN_T0, type Answer, type SfnCase } from '../helpers/sfn-driver.js';
import { A } from '../unit/sfn-case-builders.js';
import { ANY_OUTPUT, JSONATA_CASES } from '../unit/sfn-jsonata-cases.js';
import { VARIABLE_CASES } from '../unit/sfn-variable-cases.js';

/**
 * The JSONata and variables table (test/unit/sfn-jsonata-table.test.ts) again through
 * @aws-sdk/client-sfn on a real engine: CreateStateMachine, StartExecution, an activity worker over
 * the SDK answering as the case scripts it, DescribeExecution's status, output, error and cause as
 * the SDK reads them. The engine runs on the virtual clock starting at the table's SFN_T0, so Waits
 * pass at once and `$now` reads what the table expects. Cases whose script needs the simulated
 * driver (silent or heartbeating workers, a stop, checks on the driver's run) stay in the unit table.
 */
const ALL: SfnCase[] = [...JSONATA_CASES, ...VARIABLE_CASES];
const simple = (a: Answer) => !('silent' in a) && !('startSilent' in a) && !('beats' in a);
const OVER_SDK = ALL.filter((c) => !c.check && c.stopAfter === undefined && (c.worker ?? []).every(simple));

const DAY = 86_400_000;
const isTime = (v: unknown): number | undefined => {
  const t = typeof v === 'number' ? v : typeof v === 'string' && /^2024-01-0\dT[\d:.]+Z$/.test(v) ? Date.parse(v) : NaN;
  return t >= SFN_T0 && t < SFN_T0 + DAY ? t : undefined;
};

/**
 * The expected output made to fit a real engine: the driver runs every case as execution `exec-1` of
 * state machine `sm` at exactly SFN_T0 + the waits; here each case has its own state machine and
 * real time passes on the virtual clock too, so a time the table expects may read up to a minute later.
 */
function fit(expected: unknown, got: unknown, stateMachineName: string): unknown {
  if (expected === 'sm') return stateMachineName;
  const t = isTime(expected);
  const g = isTime(got);
  if (t !== undefined && g !== undefined && g >= t && g - t < 60_000) return got;
  if (Array.isArray(expected)) return expected.map((x, k) => fit(x, Array.isArray(got) ? got[k] : undefined, stateMachineName));
  if (expected && typeof expected === 'object') {
    const o = (got && typeof got === 'object' ? got : {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, fit(v, o[k], stateMachineName)]));
  }
  return expected;
}

let env: TestEnvironment;
let sfn: SFNClient;
let activityArn: string;
beforeAll(async () => {
  env = await createTestEnvironment({ startTime: SFN_T0 });
  sfn = new SFNClient({ endpoint: env.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKID', secretAccessKey: 'SECRET' } });
  activityArn = (await sfn.send(new CreateActivityCommand({ name: 'jsonata-table' }))).activityArn!;
}, 60_000);
afterAll(async () => {
  sfn?.destroy();
  await env?.close();
});

/** Answers the case's activity tasks in the order they come, as its script says. */
async function work(answers: Answer[]): Promise<void> {
  for (const a of answers) {
    let token: string | undefined;
    while (!token) token = (await sfn.send(new GetActivityTaskCommand({ activityArn, workerName: 'table' }))).taskToken;
    if ('output' in a) await sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify(a.output) }));
    else {
      const f = a as { error?: string; cause?: string };
      await sfn.send(new SendTaskFailureCommand({ taskToken: token, error: f.error, cause: f.cause }));
    }
  }
}

describe('the JSONata and variables table through @aws-sdk/client-sfn', () => {
  it('runs at least 80 of the table\'s cases over the SDK', () => {
    expect(OVER_SDK.length).toBeGreaterThanOrEqual(80);
  });

  for (const [i, c] of OVER_SDK.entries()) {
    it(c.name, async () => {
      const definition = JSON.stringify(c.definition).replaceAll(JSON.stringify(A), JSON.stringify(activityArn));
      const name = `table-${i}`;
      const { stateMachineArn } = await sfn.send(new CreateStateMachineCommand({ name, roleArn: 'arn:aws:iam::123456789012:role/t', definition }));
      const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'exec-1', ...(c.input !== undefined ? { input: JSON.stringify(c.input) } : {}) }));
      await work(c.worker ?? []);
      let d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      for (const end = Date.now() + 20_000; d.status === 'RUNNING' && Date.now() < end;) {
        await new Promise((r) => setTimeout(r, 20));
        d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      }
      expect(d.status).toBe(c.expect.status);
      if (c.events) {
        const { events = [] } = await sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 1000 }));
        // The table's driver records what the machine records; the host writes ExecutionStarted before it.
        expect(events.map((x) => x.type)).toEqual(['ExecutionStarted', ...c.events]);
      }
      if (c.expect.status === 'SUCCEEDED') {
        if (c.expect.output !== ANY_OUTPUT) {
          const got: unknown = JSON.parse(d.output!);
          expect(got).toEqual(fit(c.expect.output, got, name));
        }
      } else if ('error' in c.expect) {
        expect(d.error).toBe(c.expect.error);
        if (c.expect.cause !== undefined) expect(d.cause).toBe(c.expect.cause);
      }
    });
  }
});
