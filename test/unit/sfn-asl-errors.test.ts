import { describe, expect, it } from 'vitest';
import { AslError, isAslError, matchesError, maxAttempts, retryDelayMs } from '../../src/sfn/asl/errors.js';
import type { Retrier } from '../../src/sfn/asl/types.js';

describe('AslError', () => {
  it('carries the error name and cause', () => {
    const e = new AslError('States.ParameterPathFailure', 'no value');
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('AslError');
    expect(e.error).toBe('States.ParameterPathFailure');
    expect(e.cause).toBe('no value');
    expect(isAslError(e, 'States.ParameterPathFailure')).toBe(true);
    expect(isAslError(e, 'States.Runtime')).toBe(false);
    expect(isAslError(new Error('x'))).toBe(false);
  });
});

describe('matchesError', () => {
  it.each<[string[], string, boolean]>([
    [['States.ALL'], 'Custom.Error', true],
    [['States.ALL'], 'States.Timeout', true],
    [['States.ALL'], 'States.HeartbeatTimeout', true],
    [['States.ALL'], 'States.TaskFailed', true],
    [['States.ALL'], 'States.Runtime', false],
    [['States.ALL'], 'States.DataLimitExceeded', false],
    [['States.TaskFailed'], 'Custom.Error', true],
    [['States.TaskFailed'], 'States.Permissions', true],
    [['States.TaskFailed'], 'States.TaskFailed', true],
    [['States.TaskFailed'], 'States.Timeout', false],
    [['States.TaskFailed'], 'States.HeartbeatTimeout', false],
    [['States.TaskFailed'], 'States.Runtime', false],
    [['States.Timeout'], 'States.Timeout', true],
    [['States.Timeout'], 'States.HeartbeatTimeout', true],
    [['States.HeartbeatTimeout'], 'States.Timeout', false],
    [['States.HeartbeatTimeout'], 'States.HeartbeatTimeout', true],
    [['States.Runtime'], 'States.Runtime', true],
    [['A', 'B'], 'B', true],
    [['A', 'B'], 'C', false],
    [['a'], 'A', false],
    [[], 'A', false],
  ])('%j matches %s → %s', (names, error, want) => {
    expect(matchesError(names, error)).toBe(want);
  });

  it('a missed heartbeat is States.Timeout, and States.HeartbeatTimeout matches it too', () => {
    expect(matchesError(['States.HeartbeatTimeout'], 'States.Timeout', true)).toBe(true);
    expect(matchesError(['States.Timeout'], 'States.Timeout', true)).toBe(true);
    expect(matchesError(['States.ALL'], 'States.Timeout', true)).toBe(true);
    expect(matchesError(['States.TaskFailed'], 'States.Timeout', true)).toBe(false);
    expect(matchesError(['States.HeartbeatTimeout'], 'States.Timeout', false)).toBe(false);
  });
});

describe('retries', () => {
  const r = (x: Partial<Retrier>): Retrier => ({ ErrorEquals: ['States.ALL'], ...x });

  it('maxAttempts defaults to 3 and keeps 0', () => {
    expect(maxAttempts(r({}))).toBe(3);
    expect(maxAttempts(r({ MaxAttempts: 0 }))).toBe(0);
    expect(maxAttempts(r({ MaxAttempts: 7 }))).toBe(7);
  });

  const never = () => {
    throw new Error('random() must not be called without jitter');
  };
  it.each<[Partial<Retrier>, number, number]>([
    [{}, 1, 1000],
    [{}, 2, 2000],
    [{}, 3, 4000],
    [{ IntervalSeconds: 3 }, 1, 3000],
    [{ IntervalSeconds: 3, BackoffRate: 1 }, 5, 3000],
    [{ IntervalSeconds: 2, BackoffRate: 1.5 }, 3, 4500],
    [{ IntervalSeconds: 1, BackoffRate: 1.1 }, 2, 1100],
    [{ IntervalSeconds: 1, BackoffRate: 2, MaxDelaySeconds: 5 }, 3, 4000],
    [{ IntervalSeconds: 1, BackoffRate: 2, MaxDelaySeconds: 5 }, 4, 5000],
    [{ IntervalSeconds: 1, BackoffRate: 2, MaxDelaySeconds: 5 }, 10, 5000],
    [{ JitterStrategy: 'NONE' }, 2, 2000],
  ])('%j attempt %d → %d ms', (x, attempt, want) => {
    expect(retryDelayMs(r(x), attempt, never)).toBe(want);
  });

  it('FULL jitter scales the capped delay by random()', () => {
    expect(retryDelayMs(r({ JitterStrategy: 'FULL' }), 3, () => 0.5)).toBe(2000);
    expect(retryDelayMs(r({ JitterStrategy: 'FULL' }), 1, () => 0)).toBe(0);
    expect(retryDelayMs(r({ JitterStrategy: 'FULL', MaxDelaySeconds: 3 }), 5, () => 0.25)).toBe(750);
    expect(retryDelayMs(r({ JitterStrategy: 'FULL' }), 1, () => 0.9999)).toBe(999);
  });
});
