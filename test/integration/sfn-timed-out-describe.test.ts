import { DescribeExecutionCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { createMachine, fullHistory, sfnHttpEngineForFile, waitClosed } from '../helpers/sfn-http.js';

/**
 * AWS's DescribeExecution of an execution that ran past its state machine's TimeoutSeconds has
 * status TIMED_OUT and a stop date, and no error or cause (a recording of a real execution shows
 * exactly those members); the history's ExecutionTimedOut event keeps its details.
 */
const h = sfnHttpEngineForFile();

describe('Step Functions: a TIMED_OUT execution', () => {
  it('DescribeExecution has no error and no cause; the ExecutionTimedOut event says why', async () => {
    const arn = await createMachine(h.sfn, { TimeoutSeconds: 1, StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 60, End: true } } });
    const { executionArn } = await h.sfn.send(new StartExecutionCommand({ stateMachineArn: arn, input: '{}' }));
    await waitClosed(h.sfn, executionArn!);
    const d = await h.sfn.send(new DescribeExecutionCommand({ executionArn }));
    expect(d).toMatchObject({ status: 'TIMED_OUT', redriveStatus: 'REDRIVABLE' });
    expect(d.stopDate).toBeInstanceOf(Date);
    expect(d).not.toHaveProperty('error');
    expect(d).not.toHaveProperty('cause');
    const last = (await fullHistory(h.sfn, executionArn!)).at(-1)!;
    expect(last.type).toBe('ExecutionTimedOut');
    expect(last.executionTimedOutEventDetails?.error).toBe('States.Timeout');
  });
});
