import { AslError } from '../asl/errors.js';
import { readPath } from '../asl/json-path.js';
import { evaluateTemplate } from '../asl/payload-template.js';
import type { MapState } from '../asl/types.js';
import { mapRunNames } from '../map-runs/map-run-arns.js';
import { MAP_RUN_RESOURCE, type MapRunRequest } from '../map-runs/map-runner.js';
import { GO_WAIT, json } from './graph-context.js';
import { itemsOf, selectItem } from './map-state.js';
import { dataLimitFault, MAX_PAYLOAD_BYTES, utf8Bytes } from './payload-limit.js';
import { evalField, isJsonata } from './query.js';
import { decideFault } from './retry-catch.js';
import { finishWithResult } from './state-flow.js';
import type { Step } from './step.js';

/**
 * A Map state in Distributed mode: its items (after ItemSelector, in ItemBatcher's batches) run as
 * child executions of a map run that the host runs (src/sfn/map-runs), as AWS runs them. The state
 * records MapStateStarted and MapRunStarted, whose task request carries what the map run needs;
 * the host answers with sfn.activity.succeeded (the children's outputs, in order) or
 * sfn.activity.failed (States.ExceedToleratedFailureThreshold), as for a task.
 */

/** A number the state reads from its definition, a JSONPath `…Path` into its input, or a JSONata expression. */
function numberOf(s: Step, def: MapState, field: string, value: unknown, path: string | undefined, effective: unknown, o: { integer: boolean; max: number }): number | undefined {
  let v: unknown = value;
  if (value === undefined && path !== undefined) v = readPath(effective, path);
  else if (value === undefined) return undefined;
  else if (isJsonata(def) && typeof value === 'string') v = evalField(s, value, field);
  const ok = typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= o.max && (!o.integer || Number.isInteger(v));
  if (!ok) throw new AslError('States.Runtime', `The value of ${path !== undefined && value === undefined ? `${field}Path ${path}` : field} must be a ${o.integer ? 'non-negative integer' : 'number from 0 to 100'}, got ${json(v).slice(0, 200)}`);
  return v as number;
}

/** Items in batches of at most MaxItemsPerBatch items and MaxInputBytesPerBatch bytes, each `{ BatchInput?, Items }`. */
function batched(s: Step, def: MapState, effective: unknown, inputs: unknown[]): { inputs: unknown[]; batches?: number[] } {
  const b = def.ItemBatcher;
  if (!b) return { inputs };
  const maxItems = numberOf(s, def, 'MaxItemsPerBatch', b.MaxItemsPerBatch, b.MaxItemsPerBatchPath, effective, { integer: true, max: Number.MAX_SAFE_INTEGER }) ?? Infinity;
  const maxBytes = numberOf(s, def, 'MaxInputBytesPerBatch', b.MaxInputBytesPerBatch, b.MaxInputBytesPerBatchPath, effective, { integer: true, max: MAX_PAYLOAD_BYTES }) ?? MAX_PAYLOAD_BYTES;
  let batchInput: unknown;
  if (b.BatchInput !== undefined) batchInput = isJsonata(def) ? evalField(s, b.BatchInput, 'BatchInput') : evaluateTemplate(b.BatchInput, effective, s.co());
  const head = batchInput === undefined ? '{"Items":[' : `{"BatchInput":${json(batchInput)},"Items":[`;
  const out: unknown[] = [];
  const sizes: number[] = [];
  let items: unknown[] = [];
  let bytes = utf8Bytes(head) + 2;
  const close = () => {
    out.push(batchInput === undefined ? { Items: items } : { BatchInput: batchInput, Items: items });
    sizes.push(items.length);
    items = [];
    bytes = utf8Bytes(head) + 2;
  };
  for (const item of inputs) {
    const size = utf8Bytes(json(item)) + (items.length > 0 ? 1 : 0);
    if (items.length > 0 && (items.length >= maxItems || bytes + size > maxBytes)) close();
    if (items.length === 0 && bytes + size > maxBytes) {
      throw new AslError('States.ItemBatcherFailed', `An item of ${size} bytes does not fit in a batch of MaxInputBytesPerBatch ${maxBytes} bytes`);
    }
    items.push(item);
    bytes += size;
  }
  if (items.length > 0) close();
  return { inputs: out, batches: sizes };
}

/** What the map run is asked to do, read from the state's input; throws as evaluation does. */
function mapRunRequest(s: Step, name: string, def: MapState, key: string): MapRunRequest {
  const { effective, items } = itemsOf(s, name, def);
  const selected = items.map((_, i) => selectItem(s, def, effective, items, i));
  const { inputs, batches } = batched(s, def, effective, selected);
  const names = mapRunNames(s.co().Execution.Id, name, def.Label, key);
  const { ProcessorConfig: _config, ...processor } = def.ItemProcessor;
  const maxConcurrency = numberOf(s, def, 'MaxConcurrency', def.MaxConcurrency, def.MaxConcurrencyPath, effective, { integer: true, max: Number.MAX_SAFE_INTEGER }) ?? 0;
  const toleratedFailurePercentage = numberOf(s, def, 'ToleratedFailurePercentage', def.ToleratedFailurePercentage, def.ToleratedFailurePercentagePath, effective, { integer: false, max: 100 });
  const toleratedFailureCount = numberOf(s, def, 'ToleratedFailureCount', def.ToleratedFailureCount, def.ToleratedFailureCountPath, effective, { integer: true, max: Number.MAX_SAFE_INTEGER });
  return {
    mapRunArn: names.mapRunArn, stateMachineArn: names.childStateMachineArn, definition: JSON.stringify(processor),
    inputs, ...(batches ? { batches } : {}), maxConcurrency,
    ...(toleratedFailurePercentage !== undefined ? { toleratedFailurePercentage } : {}),
    ...(toleratedFailureCount !== undefined ? { toleratedFailureCount } : {}),
  };
}

/** The Map state starts its map run: MapStateStarted, then MapRunStarted (whose task request the host runs once it is stored). */
export function runDistributedMap(s: Step, name: string, def: MapState): void {
  const key = `${s.env.selfId}#${s.nextSeq()}`;
  const r = s.attempt(() => mapRunRequest(s, name, def, key));
  if (!r.ok) {
    decideFault(s, def, r.fault);
    return;
  }
  s.record('MapStateStarted', { length: r.value.inputs.length });
  s.record('MapRunStarted', { mapRunArn: r.value.mapRunArn }, { task: { key, resource: MAP_RUN_RESOURCE, input: JSON.stringify(r.value) } });
  s.ctx.task = { key, resource: MAP_RUN_RESOURCE, deadline: null, heartbeatMs: null, hbDeadline: null, started: false };
  s.ctx.go = GO_WAIT;
}

/** The map run succeeded: its children's outputs, in item order, are the state's result. */
export function mapRunSucceeded(s: Step, name: string, def: MapState, output: unknown): void {
  s.record('MapRunSucceeded', undefined, { taskKey: s.ctx.task!.key });
  s.ctx.task = null;
  if (utf8Bytes(json(output)) > MAX_PAYLOAD_BYTES) {
    decideFault(s, def, dataLimitFault(name), () => s.record('MapStateFailed'));
    return;
  }
  s.record('MapStateSucceeded');
  finishWithResult(s, def, output);
}

/** The map run failed (more failed children than tolerated): MapRunFailed, then the state's fault. */
export function mapRunFailed(s: Step, def: MapState, error: string | undefined, cause: string | undefined): void {
  const fault = { error: error ?? 'States.Runtime', cause: cause ?? '' };
  s.record('MapRunFailed', { error: fault.error, cause: fault.cause }, { taskKey: s.ctx.task!.key });
  s.ctx.task = null;
  decideFault(s, def, fault, () => s.record('MapStateFailed'));
}

/** Whether a Map state runs in Distributed mode. */
export const isDistributed = (def: MapState): boolean => def.ItemProcessor.ProcessorConfig?.Mode === 'DISTRIBUTED';
