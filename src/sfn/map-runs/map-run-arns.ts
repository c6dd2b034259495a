import { createHash } from 'node:crypto';

/**
 * The names AWS gives a Distributed Map's resources. A map run is
 * `arn:aws:states:<region>:<account>:mapRun:<stateMachineName>/<label>:<mapRunId>`; its child
 * executions run the labelled state machine `…:stateMachine:<stateMachineName>/<label>` and are
 * `…:execution:<stateMachineName>/<label>:<childName>`. The label is the state's Label, or (as AWS
 * does without one) a UUID. Every id here is derived, never drawn: the same map run of the same
 * execution gets the same names after a crash, so nothing starts twice.
 */

/** A name-based UUID (RFC 4122 version 5, SHA-1) of `text`: what AWS's child names look like. */
export function derivedUuid(text: string): string {
  const h = createHash('sha1').update(text).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** What the names of one map run are built from: the parent execution's ARN, the Map state's label and the run's task key. */
export interface MapRunNames {
  mapRunArn: string;
  /** The labelled state machine the children run (`<stateMachineName>/<label>`). */
  childStateMachineName: string;
  childStateMachineArn: string;
}

// arn:<partition>:states:<region>:<account>:execution:<stateMachine>:<name>
const EXECUTION = /^(arn:aws(?:-[a-z]+)*:states:[a-z0-9-]+:\d{12}):execution:([^:]+):([^:]+)$/;

/** The names of the map run that `key` (the Map state's visit) starts in execution `executionArn`. */
export function mapRunNames(executionArn: string, stateName: string, label: string | undefined, key: string): MapRunNames {
  const m = EXECUTION.exec(executionArn);
  if (!m) throw new Error(`not an execution ARN: ${executionArn}`);
  const [, base, stateMachineName] = m as unknown as [string, string, string];
  const run = derivedUuid(`${executionArn}#${key}`);
  const tag = label ?? derivedUuid(`${executionArn}#${stateName}`);
  const childStateMachineName = `${stateMachineName}/${tag}`;
  return {
    mapRunArn: `${base}:mapRun:${childStateMachineName}:${run}`,
    childStateMachineName,
    childStateMachineArn: `${base}:stateMachine:${childStateMachineName}`,
  };
}

/** The name of a map run's child execution that runs item (or batch) `index`. */
export const childName = (mapRunArn: string, index: number): string => derivedUuid(`${mapRunArn}/${index}`);

/** `…:execution:<stateMachineName>/<label>:<childName>` of a map run's child. */
export function childExecutionArn(mapRunArn: string, index: number): string {
  const i = mapRunArn.indexOf(':mapRun:');
  const rest = mapRunArn.slice(i + ':mapRun:'.length);
  const smName = rest.slice(0, rest.lastIndexOf(':'));
  return `${mapRunArn.slice(0, i)}:execution:${smName}:${childName(mapRunArn, index)}`;
}

/** The parts of a map run ARN, or undefined when it is not one. */
export function readMapRunArn(arn: string): { stateMachineName: string; label: string; id: string } | undefined {
  const m = /^arn:aws(?:-[a-z]+)*:states:[a-z0-9-]+:\d{12}:mapRun:([^:/]{1,80})\/([^:/]{1,80}):([0-9a-f-]{36})$/.exec(arn);
  if (!m) return undefined;
  return { stateMachineName: m[1]!, label: m[2]!, id: m[3]! };
}
