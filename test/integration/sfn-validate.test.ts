import {
  DescribeStateMachineForExecutionCommand, ExecutionDoesNotExist, InvalidArn, StartExecutionCommand, UpdateStateMachineCommand,
  ValidateStateMachineDefinitionCommand, ValidationException, type SFNServiceException,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMachine, rejection, SFN_ROLE, startSfnHttpEngine, waitClosed, type SfnHttpEngine } from '../helpers/sfn-http.js';
import { REGION } from '../helpers/swf-http.js';

let h: SfnHttpEngine;
beforeAll(async () => { h = await startSfnHttpEngine(); });
afterAll(async () => { await h?.stop(); });

async function expectFault(p: Promise<unknown>, cls: abstract new (...a: any[]) => SFNServiceException): Promise<any> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(cls);
  return err;
}

const validate = (definition: string, extra: object = {}) => h.sfn.send(new ValidateStateMachineDefinitionCommand({ definition, ...extra }));
/** Three problems: an unknown state type, and two Next targets that do not exist. */
const BROKEN = JSON.stringify({
  StartAt: 'A',
  States: { A: { Type: 'Pass', Next: 'Nowhere' }, B: { Type: 'Bogus', End: true }, C: { Type: 'Pass', Next: 'Elsewhere' } },
});

describe('ValidateStateMachineDefinition (AWS SDK)', () => {
  it('answers OK with no diagnostics for a valid definition', async () => {
    const r = await validate(JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Pass', End: true } } }), { type: 'STANDARD', severity: 'WARNING' });
    expect({ result: r.result, diagnostics: r.diagnostics, truncated: r.truncated }).toEqual({ result: 'OK', diagnostics: [], truncated: false });
  });

  it('answers FAIL with every problem as an ERROR diagnostic (code, message, location), truncated to maxResults', async () => {
    const r = await validate(BROKEN);
    expect(r.result).toBe('FAIL');
    expect(r.truncated).toBe(false);
    expect(r.diagnostics!.length).toBeGreaterThanOrEqual(3);
    for (const d of r.diagnostics!) {
      expect(d.severity).toBe('ERROR');
      expect(d.code).toMatch(/^[A-Z_]+$/);
      expect(d.message!.length).toBeGreaterThan(0);
    }
    expect(r.diagnostics!.map((d) => d.location)).toContain('/States/A/Next');
    const one = await validate(BROKEN, { maxResults: 1 });
    expect({ n: one.diagnostics!.length, truncated: one.truncated, first: one.diagnostics![0] }).toEqual({ n: 1, truncated: true, first: r.diagnostics![0] });
    const json = await validate('{"StartAt":');
    expect({ result: json.result, code: json.diagnostics![0]!.code, location: json.diagnostics![0]!.location })
      .toEqual({ result: 'FAIL', code: 'INVALID_JSON_DESCRIPTION', location: undefined });
  });

  it('refuses bad requests with ValidationException', async () => {
    await expectFault(h.sfn.send(new ValidateStateMachineDefinitionCommand({} as any)), ValidationException);
    await expectFault(validate(''), ValidationException);
    await expectFault(validate('{}', { maxResults: 101 }), ValidationException);
    await expectFault(validate('{}', { severity: 'INFO' as any }), ValidationException);
    await expectFault(validate('{}', { type: 'OTHER' as any }), ValidationException);
  });
});

describe('DescribeStateMachineForExecution (AWS SDK)', () => {
  it('gives the definition and revision an execution ran, after the state machine changed', async () => {
    const first = { StartAt: 'A', States: { A: { Type: 'Pass', Result: 1, End: true } } };
    const stateMachineArn = await createMachine(h.sfn, first);
    const { executionArn } = await h.sfn.send(new StartExecutionCommand({ stateMachineArn }));
    await waitClosed(h.sfn, executionArn!);
    const before = await h.sfn.send(new DescribeStateMachineForExecutionCommand({ executionArn }));
    await h.sfn.send(new UpdateStateMachineCommand({ stateMachineArn, definition: JSON.stringify({ StartAt: 'B', States: { B: { Type: 'Succeed' } } }) }));
    const d = await h.sfn.send(new DescribeStateMachineForExecutionCommand({ executionArn, includedData: 'ALL_DATA' }));
    expect({ arn: d.stateMachineArn, name: d.name, def: d.definition, role: d.roleArn, rev: d.revisionId, at: d.updateDate?.getTime() }).toEqual({
      arn: stateMachineArn, name: stateMachineArn.split(':').at(-1), def: JSON.stringify(first), role: SFN_ROLE, rev: before.revisionId, at: before.updateDate!.getTime(),
    });
    expect(d.revisionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers InvalidArn, ExecutionDoesNotExist and ValidationException as AWS does', async () => {
    await expectFault(h.sfn.send(new DescribeStateMachineForExecutionCommand({ executionArn: 'nope' })), InvalidArn);
    await expectFault(h.sfn.send(new DescribeStateMachineForExecutionCommand({ executionArn: `arn:aws:states:${REGION}:000000000000:execution:none:none` })), ExecutionDoesNotExist);
    await expectFault(h.sfn.send(new DescribeStateMachineForExecutionCommand({ executionArn: 'x', includedData: 'SOME' as any })), ValidationException);
  });
});
