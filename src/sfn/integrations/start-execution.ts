import { Fault, isFault } from '../../protocol/faults.js';
import { awaitExecution, type ChildWatchDeps, type DescribedExecution } from './child-executions.js';
import { childName, depthOf, MAX_CHILD_DEPTH } from './child-executions-lineage.js';
import type { Integration, IntegrationCall, IntegrationPattern, IntegrationResult } from './integration.js';
import { closedResult, refusalResult, startedOutput } from './start-execution-output.js';

/** The parameters AWS's optimized integration takes (StartExecution's, in PascalCase). */
const PARAMETERS = new Set(['StateMachineArn', 'Input', 'Name']);

const unsupported = (field: string) => `The field '${field}' is not supported by Step Functions`;

/** The first parameter the integration does not take (`X.$` is X), or undefined. */
function unknownField(parameters: object): string | undefined {
  return Object.keys(parameters).map((k) => (k.endsWith('.$') ? k.slice(0, -2) : k)).find((k) => !PARAMETERS.has(k));
}

/** Input as StartExecution takes it: text as given, no input `{}`, any other value as JSON. */
const inputText = (input: unknown): string => (typeof input === 'string' ? input : input === undefined || input === null ? '{}' : JSON.stringify(input));

/**
 * The ARN of the execution `name` of the state machine a state machine, version or alias ARN names
 * (`…:stateMachine:<sm>[:<version or alias>]` → `…:execution:<sm>:<name>`).
 */
function executionArnOf(stateMachineArn: unknown, name: string): string | undefined {
  if (typeof stateMachineArn !== 'string') return undefined;
  const parts = stateMachineArn.split(':');
  if (parts.length < 7 || parts[5] !== 'stateMachine') return undefined;
  return [...parts.slice(0, 5), 'execution', parts[6], name].join(':');
}

/** What a child's start answered (StartExecution's members, the date in epoch seconds). */
interface Started { executionArn: string; startDate: number }

/** How long an aborted `.sync` call waits for its parent to close before it takes the abort for the node letting the parent go. */
const PARENT_CLOSE_MS = 2_000;

/** Why the parent's task stopped a `.sync` child, in AWS's words. */
const abortCause = (parentArn: string) =>
  `The Task state in AWS Step Functions execution [${parentArn}] which was managing this resource was aborted`;

/**
 * `arn:aws:states:::states:startExecution` (request-response, `.sync`, `.sync:2`,
 * `.waitForTaskToken`): starts an execution of a state machine (a state machine, version or alias
 * ARN) on this engine. Without a Name the child's name is derived from the parent and the task's
 * scheduling attempt, so the host's re-invocation after a crash finds the same child (StartExecution
 * is idempotent for a running one; a closed one is described instead). `.sync` waits for the child
 * (awaitExecution) and stops it when the parent's task ends first, as AWS does (not when this node
 * merely lets the parent go: its next owner invokes the task again and waits on).
 */
export class StartExecutionIntegration implements Integration {
  readonly resourceType = 'states';
  readonly actions: Readonly<Record<string, readonly IntegrationPattern[]>> = { startExecution: ['request', 'sync', 'sync:2', 'waitForTaskToken'] };

  constructor(private readonly deps: ChildWatchDeps) {}

  check(action: string, parameters: unknown): string | undefined {
    if (action !== 'startExecution' || parameters === null || typeof parameters !== 'object' || Array.isArray(parameters)) return undefined;
    const field = unknownField(parameters);
    return field === undefined ? undefined : unsupported(field);
  }

  async invoke(call: IntegrationCall): Promise<IntegrationResult> {
    const p = call.parameters;
    if (p === null || typeof p !== 'object' || Array.isArray(p)) return { ok: false, error: 'States.Runtime', cause: 'The parameters of states:startExecution must be a JSON object' };
    const field = unknownField(p);
    if (field !== undefined) return { ok: false, error: 'States.Runtime', cause: unsupported(field) };
    const params = p as Record<string, unknown>;
    let started: Started;
    try {
      started = await this.start(call, params);
    } catch (err) {
      if (call.signal.aborted) return { ok: false, error: 'States.Runtime', cause: 'The task ended before the child execution started' };
      return refusalResult(err);
    }
    const pattern = call.service.pattern;
    if (pattern !== 'sync' && pattern !== 'sync:2') return { ok: true, output: startedOutput(started) };
    // AWS records TaskSubmitted with StartExecution's answer before it waits for the child.
    call.submitted?.(startedOutput(started));
    let closed: DescribedExecution;
    try {
      closed = await awaitExecution(this.deps, started.executionArn, call.signal);
    } catch (err) {
      if (!call.signal.aborted) return refusalResult(err);
      if (await this.taskEnded(call)) await this.stopChild(started.executionArn, call.executionArn);
      return { ok: false, error: 'States.Runtime', cause: abortCause(call.executionArn) };
    }
    return closedResult(closed, pattern === 'sync:2');
  }

  /** Starts the child (or finds the one a previous invocation of this attempt started). */
  private async start(call: IntegrationCall, params: Record<string, unknown>): Promise<Started> {
    const given = params.Name !== undefined && params.Name !== null;
    const depth = await this.childDepth(call);
    const name = given ? params.Name : childName(call.executionArn, call.stateName, call.taskKey, depth);
    const input = inputText(params.Input);
    const request = { stateMachineArn: params.StateMachineArn, input, name };
    try {
      return await this.deps.call('StartExecution', request, call.signal) as Started;
    } catch (err) {
      // A derived name already taken: this attempt's child, started by an invocation before a crash, closed since.
      if (given || !isFault(err, 'ExecutionAlreadyExists')) throw err;
      const arn = executionArnOf(params.StateMachineArn, name as string);
      if (arn === undefined) throw err;
      const d = await this.deps.call('DescribeExecution', { executionArn: arn }, call.signal) as DescribedExecution;
      if (d.input !== input) throw err;
      return { executionArn: d.executionArn, startDate: d.startDate };
    }
  }

  /** The child's depth (its parent's plus one); refused past MAX_CHILD_DEPTH. */
  private async childDepth(call: IntegrationCall): Promise<number> {
    const depth = 1 + await depthOf(this.deps, call.executionArn, call.signal);
    if (depth > MAX_CHILD_DEPTH) {
      throw new Fault('ExecutionLimitExceeded', `Execution Limit Exceeded: child executions nest at most ${MAX_CHILD_DEPTH} deep, and '${call.executionArn}' is at depth ${depth - 1}`);
    }
    return depth;
  }

  /**
   * Whether an aborted call's Task really ended (its deadline passed, or the parent closed: stopped,
   * timed out, failed) rather than this node letting the parent go (a shutdown, a partition moving):
   * then the parent's next owner invokes the task again and finds the child running.
   */
  private async taskEnded(call: IntegrationCall): Promise<boolean> {
    if (call.deadline !== undefined && Date.now() >= call.deadline) return true;
    try {
      await awaitExecution(this.deps, call.executionArn, AbortSignal.timeout(PARENT_CLOSE_MS));
      return true;
    } catch {
      return false;
    }
  }

  private async stopChild(childArn: string, parentArn: string): Promise<void> {
    try {
      await this.deps.call('StopExecution', { executionArn: childArn, cause: abortCause(parentArn) });
    } catch (err) {
      // Closed meanwhile: nothing to stop. Anything else is logged; the child then runs to its own end.
      if (!isFault(err, 'ExecutionDoesNotExist')) this.deps.log.warn({ err, childArn, parentArn }, 'child execution of an aborted task not stopped');
    }
  }
}
