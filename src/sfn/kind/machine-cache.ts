import { createHash } from 'node:crypto';
import type { AnyStateMachine } from 'xstate';
import type { MachineClock } from '../../../machines/swf/history-event.js';
import { compileStateMachine } from '../compile/compile-state-machine.js';
import type { SfnHooks } from '../compile/contract.js';
import { SingleFlight } from '../../engine/single-flight.js';
import { parseDefinitionOffThread } from './definition-parser.js';
import type { SfnExecution } from './sfn-execution.js';

/** The hooks of compiled machines, routed to the execution `of` finds for an actor system. */
export function executionHooks(of: (system: unknown) => SfnExecution | undefined): SfnHooks {
  return {
    record: (system, actorId, e) => of(system)?.record(actorId, e),
    used: (system) => of(system)?.used ?? 0,
    executionInput: (system) => of(system)?.executionInput ?? null,
    ended: (system, actorId) => of(system)?.ended(actorId),
    link: (system, op) => of(system)?.link(op),
  };
}

/**
 * Compiled root machines by definition hash: every execution of one definition (and every rebuild
 * of one) shares a machine; the hooks route each recorded event to its execution by actor system.
 * `prepare` parses off the event loop and compiles; `get` answers a prepared machine.
 */
export class MachineCache {
  private readonly machines = new Map<string, AnyStateMachine>();
  private readonly compiling = new SingleFlight<string, AnyStateMachine>();

  constructor(private readonly clock: MachineClock, private readonly hooks: SfnHooks) {}

  private static hash(definition: string): string {
    return createHash('sha256').update(definition).digest('base64url');
  }

  /** The machine of a definition, parsed (large ones on a worker thread) and compiled once. */
  prepare(definition: string): Promise<AnyStateMachine> {
    const hash = MachineCache.hash(definition);
    const hit = this.machines.get(hash);
    if (hit) return Promise.resolve(hit);
    return this.compiling.run(hash, async () => {
      const m = compileStateMachine(await parseDefinitionOffThread(definition), { clock: this.clock, hooks: this.hooks }).machine;
      this.machines.set(hash, m);
      return m;
    });
  }

  /** A machine `prepare` made; the callers prepare before they spawn. */
  get(definition: string): AnyStateMachine {
    const m = this.machines.get(MachineCache.hash(definition));
    if (!m) throw new Error('state machine definition used before it was prepared');
    return m;
  }
}
