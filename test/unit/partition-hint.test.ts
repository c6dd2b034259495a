import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { partitionHint, partitionOf, SFN_DOMAIN } from '../../src/protocol/partition-hint.js';
import { TaskTokens } from '../../src/engine/task-token.js';
import { encodeSfnTaskToken } from '../../src/sfn/kind/sfn-task-token.js';
import { executionArn } from '../../src/sfn/arns.js';

const P = 16;
const tokens = new TaskTokens(randomBytes(32));
const arnCtx = { region: 'us-east-1', account: '123456789012' };

describe('partitionHint: the client picks the partition the engine routes to', () => {
  it('SWF requests that name domain and workflowId', () => {
    for (let i = 0; i < 50; i++) {
      const domain = `d${i % 3}`;
      const workflowId = `wf-${i}`;
      const want = partitionOf(domain, workflowId, P);
      for (const action of ['StartWorkflowExecution', 'SignalWorkflowExecution', 'RequestCancelWorkflowExecution', 'TerminateWorkflowExecution']) {
        expect(partitionHint(action, { domain, workflowId }, P)).toBe(want);
      }
      for (const action of ['DescribeWorkflowExecution', 'GetWorkflowExecutionHistory']) {
        expect(partitionHint(action, { domain, execution: { workflowId, runId: 'r' } }, P)).toBe(want);
      }
    }
  });

  it('SWF task tokens, read without the key (the engine still checks the MAC)', () => {
    const ref = { domain: 'orders', workflowId: 'order-7', runId: 'r1', scheduledEventId: 3, startedEventId: 4 };
    const want = partitionOf('orders', 'order-7', P);
    const decision = tokens.encodeTaskToken({ ...ref, kind: 'd' });
    const activity = tokens.encodeTaskToken({ ...ref, kind: 'a' });
    expect(partitionHint('RespondDecisionTaskCompleted', { taskToken: decision }, P)).toBe(want);
    for (const action of ['RespondActivityTaskCompleted', 'RespondActivityTaskFailed', 'RespondActivityTaskCanceled', 'RecordActivityTaskHeartbeat']) {
      expect(partitionHint(action, { taskToken: activity }, P)).toBe(want);
    }
  });

  it('Step Functions: named starts, execution ARNs and task tokens', () => {
    const sm = 'arn:aws:states:us-east-1:123456789012:stateMachine:Orders';
    const arn = executionArn(arnCtx, 'Orders', 'run-1');
    const want = partitionOf(SFN_DOMAIN, arn, P);
    expect(partitionHint('StartExecution', { stateMachineArn: sm, name: 'run-1' }, P)).toBe(want);
    // A version, an alias or a mock test case names the same execution.
    for (const q of [':3', ':live', '#HappyPath']) expect(partitionHint('StartExecution', { stateMachineArn: `${sm}${q}`, name: 'run-1' }, P)).toBe(want);
    expect(partitionHint('StopExecution', { executionArn: arn }, P)).toBe(want);
    expect(partitionHint('RedriveExecution', { executionArn: arn }, P)).toBe(want);
    const taskToken = encodeSfnTaskToken(tokens, { executionArn: arn, partition: 5, key: 'Ship#1' });
    for (const action of ['SendTaskSuccess', 'SendTaskFailure', 'SendTaskHeartbeat']) expect(partitionHint(action, { taskToken }, P)).toBe(5);
  });

  it('no hint where the request does not tell, or tells nonsense', () => {
    expect(partitionHint('StartExecution', { stateMachineArn: 'arn:aws:states:us-east-1:1:stateMachine:Orders' }, P)).toBeUndefined(); // the engine names it
    expect(partitionHint('StartExecution', { stateMachineArn: 'not-an-arn', name: 'x' }, P)).toBeUndefined();
    expect(partitionHint('PollForDecisionTask', { domain: 'd', taskList: { name: 't' } }, P)).toBeUndefined();
    expect(partitionHint('ListDomains', {}, P)).toBeUndefined();
    expect(partitionHint('StartWorkflowExecution', { domain: 'd' }, P)).toBeUndefined();
    expect(partitionHint('StartWorkflowExecution', { domain: 'd', workflowId: 7 }, P)).toBeUndefined();
    expect(partitionHint('DescribeWorkflowExecution', { domain: 'd', execution: 'x' }, P)).toBeUndefined();
    for (const taskToken of ['', 'abc', '!!!', 'A'.repeat(2000), Buffer.alloc(40, 0xc1).toString('base64url'), 42]) {
      expect(partitionHint('RespondActivityTaskCompleted', { taskToken }, P)).toBeUndefined();
      expect(partitionHint('SendTaskSuccess', { taskToken }, P)).toBeUndefined();
    }
    // An SFN token's partition outside the count the client knows is no hint.
    const far = encodeSfnTaskToken(tokens, { executionArn: 'a', partition: P + 1, key: 'k' });
    expect(partitionHint('SendTaskSuccess', { taskToken: far }, P)).toBeUndefined();
  });
});
