import { attributesOf, type ActorFlowClient, type WireEvent } from '../../src/sdk/client.js';

/** Waits until the run is closed and returns its history. */
export async function closedHistory(client: ActorFlowClient, domain: string, execution: { workflowId: string; runId: string }, timeoutMs = 20_000): Promise<WireEvent[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const d = await client.call<{ executionInfo: { executionStatus: string } }>('DescribeWorkflowExecution', { domain, execution });
    if (d.executionInfo.executionStatus === 'CLOSED') return client.history(domain, execution);
    if (Date.now() > until) throw new Error(`run ${execution.workflowId} still open after ${timeoutMs} ms:\n${(await client.history(domain, execution)).map((e) => e.eventType).join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The history's shape without ids and times: type plus the attributes that matter for a comparison. */
export function shape(events: WireEvent[]): string[] {
  return events.map((e) => {
    const a = attributesOf(e);
    const keep = ['activityId', 'timerId', 'markerName', 'signalName', 'result', 'reason', 'input', 'workflowId', 'childPolicy'];
    const shown = keep.filter((k) => a[k] !== undefined && typeof a[k] !== 'object').map((k) => `${k}=${String(a[k]).slice(0, 60)}`);
    const type = a.activityType?.name ?? a.workflowType?.name;
    return [e.eventType, ...(type ? [`type=${type}`] : []), ...shown].join(' ');
  });
}

export async function start(client: ActorFlowClient, domain: string, workflowId: string, workflowType: { name: string; version: string }, input?: string, extra: object = {}): Promise<{ workflowId: string; runId: string }> {
  const { runId } = await client.call<{ runId: string }>('StartWorkflowExecution', { domain, workflowId, workflowType, ...(input !== undefined ? { input } : {}), ...extra });
  return { workflowId, runId };
}
