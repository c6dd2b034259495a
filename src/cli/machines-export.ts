import { mkdir, writeFile } from 'node:fs/promises';
import { resolve, join } from 'node:path';
import { createActivityTaskMachine } from '../../machines/swf/activity-task.machine.js';
import { createDecisionTaskMachine } from '../../machines/swf/decision-task.machine.js';
import { createTimerMachine } from '../../machines/swf/timer.machine.js';
import { createWorkflowExecutionMachine } from '../../machines/swf/workflow-execution.machine.js';
import type { MachineClock } from '../../machines/swf/history-event.js';
import { toMermaid, type MachineLike } from './mermaid.js';

/** The engine's four machines, by the file name they are exported under. */
export const EXPORTED_MACHINES: readonly { file: string; create: (clock: MachineClock) => MachineLike & { toJSON(): unknown } }[] = [
  { file: 'workflow-execution', create: createWorkflowExecutionMachine },
  { file: 'decision-task', create: createDecisionTaskMachine },
  { file: 'activity-task', create: createActivityTaskMachine },
  { file: 'timer', create: createTimerMachine },
];

/**
 * Writes `<name>.json` (the XState definition, `machine.toJSON()`) and `<name>.mmd` (a Mermaid
 * stateDiagram-v2) for each machine into `outDir`; returns the paths written.
 */
export async function exportMachines(outDir: string): Promise<string[]> {
  const dir = resolve(outDir);
  await mkdir(dir, { recursive: true });
  const clock: MachineClock = { now: () => Date.now() };
  const written: string[] = [];
  for (const { file, create } of EXPORTED_MACHINES) {
    const machine = create(clock);
    const json = join(dir, `${file}.json`);
    const mmd = join(dir, `${file}.mmd`);
    await writeFile(json, `${JSON.stringify(machine.toJSON(), null, 2)}\n`);
    await writeFile(mmd, toMermaid(machine));
    written.push(json, mmd);
  }
  return written;
}
