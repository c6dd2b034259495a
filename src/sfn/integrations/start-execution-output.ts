import { randomUUID } from 'node:crypto';
import { Fault, faultStatus } from '../../protocol/faults.js';
import type { DescribedExecution } from './child-executions.js';
import type { IntegrationResult } from './integration.js';

/*
 * What a startExecution Task state answers, in the shapes AWS gives its Task output: the Step
 * Functions API's members in PascalCase, in alphabetical order, dates in epoch milliseconds (not the
 * API's epoch seconds). The SDK's HTTP metadata AWS also puts in the request-response output
 * (SdkHttpMetadata, SdkResponseMetadata) describes AWS's HTTP exchange and is left out.
 */

const DATES = new Set(['startDate', 'stopDate', 'redriveDate']);

const pascal = (k: string): string => k.charAt(0).toUpperCase() + k.slice(1);

/** An API answer as Task output: PascalCase members sorted, dates in ms, nested objects alike. */
function taskShape(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort((a, b) => (pascal(a) < pascal(b) ? -1 : 1))) {
    const x = v[k];
    if (x === undefined) continue;
    if (DATES.has(k) && typeof x === 'number') out[pascal(k)] = Math.round(x * 1000);
    else if (x !== null && typeof x === 'object' && !Array.isArray(x)) out[pascal(k)] = taskShape(x as Record<string, unknown>);
    else out[pascal(k)] = x;
  }
  return out;
}

/** Request-response (and `.waitForTaskToken`'s TaskSubmitted): StartExecution's answer. */
export function startedOutput(started: { executionArn: string; startDate: number }): Record<string, unknown> {
  return taskShape({ executionArn: started.executionArn, startDate: started.startDate });
}

/** `.sync`: DescribeExecution with Input and Output as JSON text; `.sync:2`: with them as JSON values. */
export function describedOutput(d: DescribedExecution, json: boolean): Record<string, unknown> {
  const out = taskShape(d);
  if (json) {
    for (const k of ['Input', 'Output']) {
      const text = out[k];
      if (typeof text === 'string') {
        try { out[k] = JSON.parse(text); } catch { /* kept as text: not JSON */ }
      }
    }
  }
  return out;
}

/**
 * The Task's result once the child closed: its description when it SUCCEEDED; for FAILED, TIMED_OUT
 * and ABORTED, `States.TaskFailed` with the description as JSON for the cause, as AWS fails the task.
 */
export function closedResult(d: DescribedExecution, json: boolean): IntegrationResult {
  const out = describedOutput(d, json);
  if (d.status === 'SUCCEEDED') return { ok: true, output: out };
  return { ok: false, error: 'States.TaskFailed', cause: JSON.stringify(out) };
}

/**
 * A refusal of the Step Functions API as the optimized integration reports it:
 * `StepFunctions.<Code>Exception` (a code already ending in Exception kept) and AWS's cause, the
 * message followed by the service's request details. Anything else (the node failing) is
 * `States.TaskFailed` with its message.
 */
export function refusalResult(err: unknown): IntegrationResult {
  if (err instanceof Fault) {
    const code = err.name;
    const error = `StepFunctions.${code.endsWith('Exception') ? code : `${code}Exception`}`;
    return { ok: false, error, cause: `${err.message} (Service: AWSStepFunctions; Status Code: ${faultStatus(code)}; Error Code: ${code}; Request ID: ${randomUUID()}; Proxy: null)` };
  }
  return { ok: false, error: 'States.TaskFailed', cause: err instanceof Error ? err.message : String(err) };
}
