import { describe, expect, it } from 'vitest';
import { expressProblems } from '../../src/sfn/express/express-definition.js';
import { logs } from '../../src/sfn/express/express-log.js';

describe('express definitions', () => {
  it('finds activities and .sync / .waitForTaskToken at every depth, and nothing in a Pass/Choice machine', () => {
    const task = (Resource: string) => ({ StartAt: 'T', States: { T: { Type: 'Task', Resource, End: true } } });
    const def = {
      StartAt: 'M',
      States: {
        M: { Type: 'Map', ItemProcessor: task('arn:aws:states:::states:startExecution.sync:2'), Next: 'I' },
        I: { Type: 'Map', Iterator: task('arn:aws:states:::lambda:invoke.waitForTaskToken'), Next: 'L' },
        L: { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke', End: true },
      },
    };
    expect(expressProblems(def).map((p) => `${p.path}: ${p.message}`)).toEqual([
      "/States/M/ItemProcessor/States/T/Resource: Express state machine does not support '.sync:2' service integration",
      "/States/I/Iterator/States/T/Resource: Express state machine does not support '.waitForTaskToken' service integration",
    ]);
    expect(expressProblems({ StartAt: 'P', States: { P: { Type: 'Pass', Next: 'C' }, C: { Type: 'Choice', Choices: [], Default: 'P' } } })).toEqual([]);
  });

  it('logs every event at ALL, failures at ERROR, the execution\'s end at FATAL, nothing at OFF', () => {
    const types = ['ExecutionStarted', 'PassStateEntered', 'ActivityFailed', 'MapIterationAborted', 'ActivityTimedOut', 'ExecutionFailed', 'ExecutionTimedOut', 'ExecutionSucceeded'];
    const at = (level: 'ALL' | 'ERROR' | 'FATAL' | 'OFF') => types.filter((t) => logs(level, t));
    expect(at('ALL')).toEqual(types);
    expect(at('ERROR')).toEqual(['ActivityFailed', 'MapIterationAborted', 'ActivityTimedOut', 'ExecutionFailed', 'ExecutionTimedOut']);
    expect(at('FATAL')).toEqual(['ExecutionFailed', 'ExecutionTimedOut']);
    expect(at('OFF')).toEqual([]);
  });
});
