import { CreateActivityCommand, StartExecutionCommand, TestStateCommand, type HistoryEvent, type SFNClient } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { createMachine, freshName, fullHistory, sfnHttpEngineForFile, waitClosed } from '../helpers/sfn-http.js';

/**
 * A caught runtime error's Cause is data the state machine goes on with (its Catch's ResultPath,
 * Output and Assign read it), so it must read as AWS writes it: "An error occurred while executing
 * the state 'S' (entered at the event id #N). …", with the id of that state's StateEntered event in
 * the history. TestState, which has no history, answers the text alone. No control character ever.
 */
const h = sfnHttpEngineForFile();
const J = 'JSONata';
const undef = (expr: string, field: string) => `The JSONata expression '${expr}' specified for the field '${field}' returned nothing (undefined).`;

async function run(sfn: SFNClient, definition: object, input: object): Promise<{ output: any; events: HistoryEvent[] }> {
  const arn = await createMachine(sfn, definition);
  const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: arn, input: JSON.stringify(input) }));
  const d = await waitClosed(sfn, executionArn!);
  expect(d.status).toBe('SUCCEEDED');
  expect(d.output).not.toMatch(/\\u0001|\u0001/);
  return { output: JSON.parse(d.output!), events: await fullHistory(h.sfn, executionArn!) };
}

/** The id of the nth StateEntered event of state `name`. */
const enteredId = (events: HistoryEvent[], name: string, nth = 0): number =>
  events.filter((e) => e.type!.endsWith('StateEntered') && e.stateEnteredEventDetails?.name === name)[nth]!.id!;

describe('Step Functions: the Cause a Catch receives', () => {
  it('a Task whose Arguments fail: its Catch gets the cause naming the Task and its entered event', async () => {
    const { activityArn } = await h.sfn.send(new CreateActivityCommand({ name: freshName('act') }));
    const { output, events } = await run(h.sfn, {
      QueryLanguage: J, StartAt: 'First', States: {
        First: { Type: 'Pass', Next: 'T' },
        T: { Type: 'Task', Resource: activityArn, Arguments: { x: '{% $states.input.nope %}' },
          Catch: [{ ErrorEquals: ['States.ALL'], Assign: { seen: '{% $states.errorOutput.Cause %}' }, Next: 'Done' }], End: true },
        Done: { Type: 'Pass', Output: '{% {"caught": $states.input, "seen": $seen} %}', End: true },
      },
    }, {});
    const cause = `An error occurred while executing the state 'T' (entered at the event id #${enteredId(events, 'T')}). ${undef('$states.input.nope', 'Arguments/x')}`;
    expect(enteredId(events, 'T')).toBe(4);
    expect(output).toEqual({ caught: { Error: 'States.QueryEvaluationError', Cause: cause }, seen: cause });
    // The history's own record of the failure says the same.
    expect(events.find((e) => e.type === 'EvaluationFailed')!.evaluationFailedEventDetails!.cause).toBe(cause);
  });

  it('a Map iteration that fails, caught by the Map: the cause names the iteration\'s state', async () => {
    const { output, events } = await run(h.sfn, {
      StartAt: 'M', States: {
        M: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, StartAt: 'B',
          States: { B: { Type: 'Pass', QueryLanguage: J, Output: '{% $nope %}', End: true } } },
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.err', Next: 'Done' }], End: true },
        Done: { Type: 'Pass', End: true },
      },
    }, { items: [1] });
    expect(output.err).toEqual({
      Error: 'States.QueryEvaluationError',
      Cause: `An error occurred while executing the state 'B' (entered at the event id #${enteredId(events, 'B')}). ${undef('$nope', 'Output')}`,
    });
  });

  it('a Parallel branch that fails after a retry, caught by the Parallel: the cause names the branch state\'s last entry', async () => {
    const { output, events } = await run(h.sfn, {
      StartAt: 'P', States: {
        P: { Type: 'Parallel', Branches: [
          { StartAt: 'Ok', States: { Ok: { Type: 'Pass', End: true } } },
          { StartAt: 'Bad', States: { Bad: { Type: 'Pass', QueryLanguage: J, Output: '{% $states.input.none %}', End: true } } },
        ], Retry: [{ ErrorEquals: ['States.ALL'], MaxAttempts: 1, IntervalSeconds: 1 }],
        Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Done' }], End: true },
        Done: { Type: 'Pass', End: true },
      },
    }, {});
    expect(events.filter((e) => e.stateEnteredEventDetails?.name === 'Bad')).toHaveLength(2);
    expect(output).toEqual({
      Error: 'States.QueryEvaluationError',
      Cause: `An error occurred while executing the state 'Bad' (entered at the event id #${enteredId(events, 'Bad', 1)}). ${undef('$states.input.none', 'Output')}`,
    });
  });

  it('an activity that does not exist, withdrawn before it is stored, does not shift the entered id a sibling\'s cause names', async () => {
    const arn = await createMachine(h.sfn, {
      StartAt: 'P', States: {
        P: { Type: 'Parallel', End: true, Branches: [
          { StartAt: 'Gone', States: { Gone: { Type: 'Task', Resource: 'arn:aws:states:us-east-1:000000000000:activity:never-created', End: true } } },
          { StartAt: 'B', States: { B: { Type: 'Pass', QueryLanguage: J, Output: '{% $states.input.none %}', End: true } } },
        ] },
      },
    });
    const { executionArn } = await h.sfn.send(new StartExecutionCommand({ stateMachineArn: arn, input: '{}' }));
    const d = await waitClosed(h.sfn, executionArn!);
    const events = await fullHistory(h.sfn, executionArn!);
    expect(events.map((e) => e.type)).not.toContain('ActivityScheduled');
    expect(events.map((e) => e.id)).toEqual(events.map((_e, i) => i + 1));
    const cause = `An error occurred while executing the state 'B' (entered at the event id #${enteredId(events, 'B')}). ${undef('$states.input.none', 'Output')}`;
    expect(d).toMatchObject({ status: 'FAILED', error: 'States.QueryEvaluationError', cause });
    expect(events.find((e) => e.type === 'EvaluationFailed')!.evaluationFailedEventDetails!.cause).toBe(cause);
  });

  it('TestState answers the text alone, caught or not', async () => {
    const ts = h.sfn;
    const failed = await ts.send(new TestStateCommand({ definition: JSON.stringify({ Type: 'Pass', QueryLanguage: J, Output: '{% $states.input.nope %}', End: true }), input: '{}' }));
    expect(failed).toMatchObject({ status: 'FAILED', error: 'States.QueryEvaluationError', cause: undef('$states.input.nope', 'Output') });
    const wait = await ts.send(new TestStateCommand({ definition: JSON.stringify({ Type: 'Wait', SecondsPath: '$.s', End: true }), input: '{"s":"x"}' }));
    expect(wait).toMatchObject({ status: 'FAILED', error: 'States.Runtime', cause: 'The SecondsPath parameter cannot be parsed as a long value: $.s == x' });
    const caught = await ts.send(new TestStateCommand({
      definition: JSON.stringify({ Type: 'Task', Resource: 'arn:aws:states:us-east-1:000000000000:activity:work', QueryLanguage: J,
        Arguments: { x: '{% $states.input.nope %}' }, Catch: [{ ErrorEquals: ['States.ALL'], Next: 'D' }], End: true }),
      input: '{}', roleArn: 'arn:aws:iam::000000000000:role/sfn-test', mock: { result: '{}' },
    }));
    expect(caught.status).toBe('CAUGHT_ERROR');
    expect(JSON.parse(caught.output!)).toEqual({ Error: 'States.QueryEvaluationError', Cause: undef('$states.input.nope', 'Arguments/x') });
  });
});
