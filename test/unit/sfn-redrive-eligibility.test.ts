import { describe, expect, it } from 'vitest';
import type { SfnExecutionRecord } from '../../src/sfn/kind/execution-records.js';
import { notRedrivable } from '../../src/sfn/kind/sfn-redrive.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const rec = (o: Partial<SfnExecutionRecord>): SfnExecutionRecord => ({
  executionArn: 'arn:aws:states:us-east-1:123456789012:execution:sm:x', stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:sm',
  stateMachineName: 'sm', name: 'x', status: 'FAILED', startDate: T0, stopDate: T0 + 1000, input: '{}', partition: 0, definition: '{}', roleArn: 'r', ...o,
});

describe('which executions RedriveExecution takes (AWS\'s redriveStatusReason)', () => {
  it('takes FAILED, TIMED_OUT and ABORTED ones within 14 days of their stop', () => {
    for (const status of ['FAILED', 'TIMED_OUT', 'ABORTED'] as const) expect(notRedrivable(rec({ status }), T0 + 14 * DAY)).toBeUndefined();
  });

  it('refuses the others with AWS\'s reasons', () => {
    expect([
      notRedrivable(rec({ status: 'RUNNING', stopDate: undefined }), T0),
      notRedrivable(rec({ status: 'SUCCEEDED' }), T0),
      notRedrivable(rec({ historyEvents: 25_000 }), T0 + DAY),
      notRedrivable(rec({ stopDate: T0 + 360 * DAY }), T0 + 366 * DAY),
      notRedrivable(rec({}), T0 + 1000 + 14 * DAY + 1),
    ]).toEqual([
      'Execution is RUNNING and cannot be redriven',
      'Execution is SUCCEEDED and cannot be redriven',
      'Execution history event limit exceeded',
      'Execution has exceeded the max execution time',
      'Execution redrivable period exceeded',
    ]);
    expect(notRedrivable(rec({ historyEvents: 24_999 }), T0 + DAY)).toBeUndefined();
  });
});
