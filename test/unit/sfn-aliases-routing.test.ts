import { describe, expect, it } from 'vitest';
import { isFault } from '../../src/protocol/faults.js';
import { aliasNameProblem, parseStateMachineRef, unqualifiedArn } from '../../src/sfn/arns.js';
import { pickRoute } from '../../src/sfn/operations/start-target.js';

const SM = 'arn:aws:states:us-east-1:000000000000:stateMachine:orders';

describe('alias routing (smooth weighted round-robin)', () => {
  it('follows the weights exactly over every run of 100 picks, and interleaves them', () => {
    const routes = [{ stateMachineVersionArn: `${SM}:1`, weight: 80 }, { stateMachineVersionArn: `${SM}:2`, weight: 20 }];
    const picks = Array.from({ length: 500 }, () => pickRoute(`${SM}:a1`, routes).stateMachineVersionArn);
    expect(picks.filter((p) => p === `${SM}:1`).length).toBe(400);
    // 4 of every 5, never a run of 20 on the second version.
    for (let i = 0; i < 500; i += 5) expect(picks.slice(i, i + 5).filter((p) => p === `${SM}:2`).length).toBe(1);
  });

  it('never picks a route of weight 0, and starts afresh when the routing changes', () => {
    const only = [{ stateMachineVersionArn: `${SM}:1`, weight: 100 }, { stateMachineVersionArn: `${SM}:2`, weight: 0 }];
    expect(new Set(Array.from({ length: 50 }, () => pickRoute(`${SM}:a2`, only).stateMachineVersionArn))).toEqual(new Set([`${SM}:1`]));
    const half = [{ stateMachineVersionArn: `${SM}:1`, weight: 50 }, { stateMachineVersionArn: `${SM}:2`, weight: 50 }];
    const picks = Array.from({ length: 10 }, () => pickRoute(`${SM}:a2`, half).stateMachineVersionArn);
    expect(picks.filter((p) => p === `${SM}:2`).length).toBe(5);
  });
});

describe('qualified state machine ARNs', () => {
  it('reads a version, an alias or the state machine, as the action allows', () => {
    expect(parseStateMachineRef(`${SM}:12`, 'm', { version: true })).toMatchObject({ name: 'orders', version: 12 });
    expect(parseStateMachineRef(`${SM}:live`, 'm', { alias: true })).toMatchObject({ name: 'orders', alias: 'live' });
    expect(parseStateMachineRef(SM, 'm', {})).toEqual({ name: 'orders', region: 'us-east-1', account: '000000000000' });
    expect(unqualifiedArn(`${SM}:live`)).toBe(SM);
    const refused = (arn: string, allow: object) => {
      try { parseStateMachineRef(arn, 'm', allow); } catch (e) { return isFault(e, 'InvalidArn'); }
      return false;
    };
    expect(refused(`${SM}:live`, { version: true })).toBe(true);
    expect(refused(`${SM}:3`, { alias: true })).toBe(true);
    expect(refused(SM, { version: true, plain: false })).toBe(true);
    expect(refused(`${SM}:01`, { version: true })).toBe(true);
    expect(refused(`${SM}:a:b`, { version: true, alias: true })).toBe(true);
    expect(refused(`arn:aws:states:us-east-1:000000000000:activity:x:1`, { version: true })).toBe(true);
  });

  it('alias names follow AWS\'s pattern: at least one non-digit, at most 80', () => {
    expect(['live', 'v1.2', '_', 'a-b'].map(aliasNameProblem)).toEqual([undefined, undefined, undefined, undefined]);
    for (const bad of ['123', 'a b', 'x!', 'A'.repeat(81), '']) expect(aliasNameProblem(bad)).toBeDefined();
  });
});
