import type { SfnExecutionOutput } from '../../src/sfn/compile/contract.js';
import { SFN_T0, type SfnRun } from '../helpers/sfn-driver.js';

/** Builders shared by the case tables of sfn-compile-table.test.ts. */

export const A = 'arn:aws:states:us-east-1:123456789012:activity:work';
export const S = 1000;
export const ok = (output: unknown): SfnExecutionOutput => ({ status: 'SUCCEEDED', output });
export const failed = (error: string, cause?: string): SfnExecutionOutput => ({ status: 'FAILED', error, ...(cause !== undefined ? { cause } : {}) });
export const task = (extra: Record<string, unknown> = {}) => ({ Type: 'Task', Resource: A, ...extra });
export const terminal = (state: Record<string, unknown>) => ['Fail', 'Succeed', 'Choice'].includes(state.Type as string);
export const single = (state: Record<string, unknown>) => ({ StartAt: 'S', States: { S: terminal(state) ? state : { ...state, End: true } } });
export const at = (run: SfnRun, type: string, nth = 0) => run.events.filter((e) => e.record.type === type)[nth].at - SFN_T0;
export const scheduledInput = (run: SfnRun, nth = 0) => JSON.parse(run.events.filter((e) => e.record.type === 'ActivityScheduled')[nth].record.task!.input);

