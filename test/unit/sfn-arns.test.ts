import { describe, expect, it } from 'vitest';
import { isFault } from '../../src/protocol/faults.js';
import { activityArn, executionArn, parseArn, parseRoleArn, stateMachineArn, validateSfnName } from '../../src/sfn/arns.js';

const ctx = { region: 'us-east-1', account: '000000000000' };
const faultOf = (f: () => unknown): string | undefined => {
  try { f(); } catch (e) { return isFault(e) ? e.name : `not a fault: ${String(e)}`; }
  return undefined;
};

describe('Step Functions ARNs and names', () => {
  it('builds and parses activity, state machine and execution ARNs', () => {
    expect(activityArn(ctx, 'a')).toBe('arn:aws:states:us-east-1:000000000000:activity:a');
    expect(stateMachineArn(ctx, 'm')).toBe('arn:aws:states:us-east-1:000000000000:stateMachine:m');
    expect(executionArn(ctx, 'm', 'e')).toBe('arn:aws:states:us-east-1:000000000000:execution:m:e');
    expect(parseArn(activityArn(ctx, 'a-1_x.y'), 'activity', 'activityArn')).toEqual({ name: 'a-1_x.y', region: 'us-east-1', account: '000000000000' });
    expect(parseArn(stateMachineArn(ctx, 'm'), 'stateMachine', 'stateMachineArn').name).toBe('m');
    expect(parseArn(executionArn(ctx, 'm', 'e'), 'execution', 'executionArn')).toEqual({ name: 'e', stateMachineName: 'm', region: 'us-east-1', account: '000000000000' });
    // another region or account is well formed (it simply names nothing here)
    expect(parseArn('arn:aws-cn:states:cn-north-1:123456789012:activity:a', 'activity', 'activityArn').account).toBe('123456789012');
  });

  it('refuses bad ARNs with InvalidArn, missing ones with ValidationException, non-strings with SerializationException', () => {
    for (const bad of ['', 'x', 'arn:aws:states:us-east-1:000000000000:activity:', 'arn:aws:states:us-east-1:0000:activity:a',
      'arn:aws:sqs:us-east-1:000000000000:activity:a', 'arn:aws:states:us-east-1:000000000000:stateMachine:a',
      'arn:aws:states:us-east-1:000000000000:activity:a:b', 'arn:aws:states:us-east-1:000000000000:activity:a b']) {
      expect(faultOf(() => parseArn(bad, 'activity', 'activityArn')), bad).toBe('InvalidArn');
    }
    expect(faultOf(() => parseArn('arn:aws:states:us-east-1:000000000000:execution:m', 'execution', 'executionArn'))).toBe('InvalidArn');
    expect(faultOf(() => parseArn(undefined, 'activity', 'activityArn'))).toBe('ValidationException');
    expect(faultOf(() => parseArn(`arn:aws:states:us-east-1:000000000000:activity:${'a'.repeat(300)}`, 'activity', 'activityArn'))).toBe('ValidationException');
    expect(faultOf(() => parseArn(7, 'activity', 'activityArn'))).toBe('SerializationException');
  });

  it('accepts names of 1–80 allowed characters and refuses the rest with InvalidName', () => {
    expect(validateSfnName('Order_Flow-1.v2', 'name')).toBe('Order_Flow-1.v2');
    expect(validateSfnName('é'.repeat(80), 'name')).toBe('é'.repeat(80));
    for (const bad of ['', 'x'.repeat(81), 'a b', 'a\u00a0b', 'a\u0085b', 'x\uffff',
      ...'<>{}[]?*"#%\\^|~`$&,;:/'.split('').map((c) => `a${c}b`)]) {
      expect(faultOf(() => validateSfnName(bad, 'name')), JSON.stringify(bad)).toBe('InvalidName');
    }
    expect(validateSfnName('a\ud83d\ude00b', 'name')).toBe('a\ud83d\ude00b'); // a surrogate pair is one character
    expect(faultOf(() => validateSfnName(null, 'name'))).toBe('ValidationException');
    // Lone surrogates are no Unicode at all: refused like every other string member, before the name rule.
    for (const bad of ['a\ud800', '\udc00a']) expect(faultOf(() => validateSfnName(bad, 'name'))).toBe('ValidationException');
  });

  it('reads IAM role ARNs', () => {
    expect(parseRoleArn('arn:aws:iam::123456789012:role/service-role/My.Role+x=1,a@b', 'roleArn')).toContain('role/');
    for (const bad of ['role', 'arn:aws:iam::123:role/x', 'arn:aws:iam::123456789012:user/x', 'arn:aws:iam::123456789012:role/']) {
      expect(faultOf(() => parseRoleArn(bad, 'roleArn')), bad).toBe('InvalidArn');
    }
  });
});
