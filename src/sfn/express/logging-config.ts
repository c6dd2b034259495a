import { Fault } from '../../protocol/faults.js';
import type { InputReader } from '../../protocol/validate.js';

export type SfnLogLevel = 'ALL' | 'ERROR' | 'FATAL' | 'OFF';

/** A state machine's loggingConfiguration as AWS returns it (level and includeExecutionData always set). */
export interface SfnLoggingConfiguration {
  level: SfnLogLevel;
  includeExecutionData: boolean;
  destinations?: { cloudWatchLogsLogGroup?: { logGroupArn?: string } }[];
}

/** What DescribeStateMachine answers for a state machine created without one (as AWS). */
export const LOGGING_OFF: SfnLoggingConfiguration = { level: 'OFF', includeExecutionData: false };

const LEVELS = ['ALL', 'ERROR', 'FATAL', 'OFF'];
const ONE_DESTINATION = 'Invalid Logging Configuration: Must specify exactly one Log Destination.';
// arn:<partition>:logs:<region>:<12-digit account>:log-group:<name>:*
const LOG_GROUP_ARN = /^arn:aws(?:-[a-z]+)*:logs:[a-z0-9-]+:\d{12}:log-group:[.\-_/#A-Za-z0-9]{1,512}:\*$/;

/**
 * Reads `loggingConfiguration` into `r`'s problems (shape and lengths, as the model has them) and
 * answers it settled (defaults filled), or undefined when absent. The rules AWS checks beyond the
 * model are InvalidLoggingConfiguration, thrown by `checkLogging` once `r.done()` passed.
 */
export function readLogging(r: InputReader): SfnLoggingConfiguration | undefined {
  return r.struct('loggingConfiguration', false, (c) => {
    const level = (c.str('level', { max: 16, oneOf: LEVELS }) ?? 'OFF') as SfnLogLevel;
    const includeExecutionData = c.bool('includeExecutionData') ?? false;
    const destinations = c.list('destinations', { max: 100 }, (d) => d.struct('cloudWatchLogsLogGroup', false, (g) => ({ logGroupArn: g.str('logGroupArn', { min: 1, max: 256 }) })));
    return {
      level, includeExecutionData,
      ...(destinations ? { destinations: destinations.map((g) => (g ? { cloudWatchLogsLogGroup: g.logGroupArn === undefined ? {} : { logGroupArn: g.logGroupArn } } : {})) } : {}),
    };
  });
}

/** AWS's rules beyond the model: a level other than OFF needs exactly one destination, a CloudWatch Logs log group ARN ending in `:*`. */
export function checkLogging(cfg: SfnLoggingConfiguration | undefined): void {
  if (!cfg) return;
  const n = cfg.destinations?.length ?? 0;
  if (n > 1 || (cfg.level !== 'OFF' && n === 0)) throw new Fault('InvalidLoggingConfiguration', ONE_DESTINATION);
  for (const d of cfg.destinations ?? []) {
    const arn = d.cloudWatchLogsLogGroup?.logGroupArn;
    if (arn === undefined || !LOG_GROUP_ARN.test(arn)) {
      throw new Fault('InvalidLoggingConfiguration', `Invalid Logging Configuration: Log Destination not a valid CloudWatch Logs log group ARN: '${String(arn)}'`);
    }
  }
}
