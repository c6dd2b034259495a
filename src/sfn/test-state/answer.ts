import { matchesError } from '../asl/errors.js';
import type { Catcher, Retrier, State } from '../asl/types.js';
import { GO_FAIL, GO_RETRY, visibleVariables, type Fault } from '../compile/graph-context.js';
import { plainCause } from '../compile/state-cause.js';
import type { InspectionLevel } from './request.js';
import type { MapInspection } from './run-state.js';
import type { TestStep } from './test-step.js';

type Status = 'SUCCEEDED' | 'FAILED' | 'RETRIABLE' | 'CAUGHT_ERROR';

const text = (v: unknown): string => JSON.stringify(v ?? null);

/** The data-flow steps in the order AWS lists them (inspectionData members, JSON text each). */
const STEPS = ['afterArguments', 'afterInputPath', 'afterParameters', 'result', 'afterResultSelector', 'afterResultPath'] as const;

function statusOf(s: TestStep): { status: Status; fault?: Fault } {
  const go = s.ctx.go;
  if (go === GO_RETRY) return { status: 'RETRIABLE', fault: s.ctx.fault! };
  if (go === GO_FAIL) return { status: 'FAILED', fault: s.ctx.fault! };
  // A route to a state after a fault: a catcher took it.
  if (s.lastFault && go?.startsWith('>')) return { status: 'CAUGHT_ERROR', fault: s.lastFault };
  return { status: 'SUCCEEDED' };
}

/** Which retrier or catcher took the fault (the first whose ErrorEquals matches, as Retry and Catch choose). */
function errorDetails(s: TestStep, def: State, status: Status, fault: Fault | undefined): Record<string, number> | undefined {
  const { Retry = [], Catch = [] } = def as { Retry?: Retrier[]; Catch?: Catcher[] };
  if (!fault) return undefined;
  if (status === 'RETRIABLE') {
    return {
      retryIndex: Retry.findIndex((r) => matchesError(r.ErrorEquals, fault.error, fault.heartbeat)),
      retryBackoffIntervalSeconds: Math.trunc((s.ctx.retryAt! - s.now()) / 1000),
    };
  }
  if (status === 'CAUGHT_ERROR') return { catchIndex: Catch.findIndex((c) => matchesError(c.ErrorEquals, fault.error, fault.heartbeat)) };
  return undefined;
}

/** The inspection data of DEBUG and TRACE: the raw input, each data-flow step the state went through, the variables after it, the handler. */
function inspection(s: TestStep, def: State, input: unknown, map: MapInspection | undefined, details: Record<string, number> | undefined): Record<string, unknown> {
  const traced = { ...s.traced };
  // AWS shows a Pass state with a Result from its Result on (no InputPath or Parameters steps).
  if (def.Type === 'Pass' && (def as { Result?: unknown }).Result !== undefined) {
    delete traced.afterInputPath;
    delete traced.afterParameters;
  }
  const data: Record<string, unknown> = { input: text(input) };
  if (map) {
    if (map.afterInputPath !== undefined) data.afterInputPath = text(map.afterInputPath);
    if (map.afterItemsPath !== undefined) data.afterItemsPath = text(map.afterItemsPath);
    data.maxConcurrency = map.maxConcurrency;
  }
  for (const step of STEPS) if (step in traced) data[step] = text(traced[step]);
  const variables = visibleVariables(s.ctx);
  if (Object.keys(variables).length > 0) data.variables = text(variables);
  if (details) data.errorDetails = details;
  return data;
}

/** TestStateOutput: status, output and next state, or the error and cause; at DEBUG and TRACE the inspection data. */
export function testStateAnswer(s: TestStep, def: State, input: unknown, level: InspectionLevel, map: MapInspection | undefined): Record<string, unknown> {
  const { status, fault } = statusOf(s);
  const out: Record<string, unknown> = { status };
  if (status === 'SUCCEEDED' || status === 'CAUGHT_ERROR') {
    out.output = text(s.ctx.data);
    if (s.ctx.go?.startsWith('>')) out.nextState = s.ctx.go.slice(1);
  }
  // A Fail state without Error or Cause fails with neither (the empty string stands for "none").
  if (fault?.error) out.error = fault.error;
  if (fault?.cause) out.cause = plainCause(fault.cause);
  if (level !== 'INFO') out.inspectionData = inspection(s, def, input, map, errorDetails(s, def, status, fault));
  return out;
}
