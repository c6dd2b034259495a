import type { JetStreamClient } from '@nats-io/jetstream';
import type { Subjects } from '../../nats/subjects.js';
import { toWireEvent, type SfnStoredEvent } from '../kind/sfn-events.js';
import type { SfnExecutionRecord } from '../kind/execution-records.js';
import type { ExpressSink } from './express-execution.js';
import type { SfnLoggingConfiguration } from './logging-config.js';

/** Logging OFF: the events go nowhere (AWS keeps no history of express executions). */
const NOWHERE: ExpressSink = async () => undefined;

/** Event types AWS logs at level FATAL (and, with every failure of a state or task, at ERROR). */
const FATAL = new Set(['ExecutionFailed', 'ExecutionTimedOut', 'ExecutionAborted']);
const isError = (type: string): boolean => FATAL.has(type) || /(Failed|TimedOut|Aborted|ScheduleFailed)$/.test(type);

/** Whether a state machine's logging level logs an event of this type. */
export function logs(level: SfnLoggingConfiguration['level'], type: string): boolean {
  if (level === 'ALL') return true;
  if (level === 'ERROR') return isError(type);
  if (level === 'FATAL') return FATAL.has(type);
  return false;
}

/**
 * Where an express execution's events go. With a logging level other than OFF, each event that
 * level logs is published to JetStream, one message per event on
 * `<prefix>.xlog.<stateMachine>.<execution name>` (stream `<PREFIX>_SFN_LOGS`), in the form
 * GetExecutionHistory answers (`timestamp`, `type`, `id`, `previousEventId`, the details member;
 * input and output only with includeExecutionData) plus `executionArn`, as JSON. The CloudWatch
 * log group of the configuration is kept and returned, not written. Read them with e.g.
 * `nats stream view AF_SFN_LOGS` or `nats sub 'af.xlog.<stateMachine>.>'`.
 */
export function expressSink(js: JetStreamClient, subjects: Subjects, rec: SfnExecutionRecord, cfg: SfnLoggingConfiguration | undefined): ExpressSink {
  if (!cfg || cfg.level === 'OFF') return NOWHERE;
  const subject = subjects.sfnLog(rec.stateMachineName, rec.name);
  return async (events: readonly SfnStoredEvent[]) => {
    // Published together: one connection keeps their order.
    await Promise.all(events.filter((e) => logs(cfg.level, e.type))
      .map((e) => js.publish(subject, JSON.stringify({ ...toWireEvent(e, cfg.includeExecutionData), executionArn: rec.executionArn }))));
  };
}
