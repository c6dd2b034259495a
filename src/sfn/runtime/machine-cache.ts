import { createHash } from 'node:crypto';
import type { AnyStateMachine } from 'xstate';
import type { MachineClock } from '../../../machines/history-event.js';
import { parseDefinition } from '../asl/validate-definition.js';
import { compileStateMachine } from '../compile/compile-state-machine.js';
import type { SfnHooks } from '../compile/contract.js';

/**
 * Compiled root machines by definition hash: every execution of one definition (and every rebuild
 * of one) shares a machine; the hooks route each recorded event to its execution by actor system.
 */
export class MachineCache {
  private readonly machines = new Map<string, AnyStateMachine>();

  constructor(private readonly clock: MachineClock, private readonly hooks: SfnHooks) {}

  get(definition: string): AnyStateMachine {
    const hash = createHash('sha256').update(definition).digest('base64url');
    let m = this.machines.get(hash);
    if (!m) {
      m = compileStateMachine(parseDefinition(definition), { clock: this.clock, hooks: this.hooks }).machine;
      this.machines.set(hash, m);
    }
    return m;
  }
}
