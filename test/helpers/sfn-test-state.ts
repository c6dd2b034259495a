import { SFNClient, TestStateCommand, type TestStateCommandInput, type TestStateOutput } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll } from 'vitest';
import { startSfnHttpEngine, type SfnHttpEngine } from './sfn-http.js';
import { ANY_CREDENTIALS, REGION } from './swf-http.js';

/** TestState's members, with `definition` and `input` given as values (sent as JSON text). */
export type TestStateCall = Omit<Partial<TestStateCommandInput>, 'definition'> & { json?: unknown };

export interface TestStateClient {
  /** TestState of `definition` through the AWS SDK. */
  run(definition: object, extra?: TestStateCall): Promise<TestStateOutput>;
  /** The gateway's endpoint (for the aws CLI). */
  readonly endpoint: string;
  /** The engine's NATS server (to see what an integration publishes). */
  readonly natsUrl: string;
}

/**
 * One engine for the test file that calls this, and a Step Functions client for TestState: its
 * endpoint has AWS's `sync-` host prefix, which a client of a local endpoint must leave out.
 */
export function testStateClientForFile(): TestStateClient {
  let h: SfnHttpEngine | undefined;
  let sfn: SFNClient | undefined;
  let endpoint = '';
  beforeAll(async () => {
    h = await startSfnHttpEngine();
    endpoint = `http://127.0.0.1:${h.engine.node.http!.port}`;
    sfn = new SFNClient({ endpoint, region: REGION, credentials: ANY_CREDENTIALS, maxAttempts: 1, disableHostPrefix: true });
  });
  afterAll(async () => { sfn?.destroy(); await h?.stop(); });
  return {
    run(definition, extra = {}) {
      const { json, ...rest } = extra;
      return sfn!.send(new TestStateCommand({ definition: JSON.stringify(definition), ...(json !== undefined ? { input: JSON.stringify(json) } : {}), ...rest }));
    },
    get endpoint() { return endpoint; },
    get natsUrl() { return h!.engine.url; },
  };
}

/** The inspection data with every JSON text member parsed. */
export function parsedInspection(out: TestStateOutput): Record<string, unknown> {
  const data = out.inspectionData as Record<string, unknown> | undefined;
  if (!data) return {};
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === 'string' ? JSON.parse(v) : v]));
}
