import type * as Swf from './types/swf.js';
import type * as Sfn from './types/sfn.js';

/** Options of one call: how long to wait for the answer (default 10 s; polls: the poll time plus a grace). */
export interface CallOptions { timeoutMs?: number }

/** An engine extension of the long polls: how long the engine holds the poll (AWS holds it 60 s). */
export interface PollExtension { afPollTimeoutMs?: number }

type Polls = 'PollForDecisionTask' | 'PollForActivityTask' | 'GetActivityTask';
type InputOf<K, I> = K extends Polls ? I & PollExtension : I;

/** One method per action: `StartWorkflowExecution` → `startWorkflowExecution(input, opts?)`. */
export type ServiceMethods<A> = {
  [K in keyof A & string as Uncapitalize<K>]: A[K] extends { input: infer I; output: infer O }
    ? ({} extends I ? (input?: InputOf<K, I>, opts?: CallOptions) => Promise<O> : (input: InputOf<K, I>, opts?: CallOptions) => Promise<O>)
    : never;
};

/**
 * The Step Functions actions whose names SWF uses too. The engine's NATS API has one action
 * namespace and serves those names for SWF, so `client.sfn` leaves them out rather than call SWF.
 */
export const SFN_NAMES_OF_SWF = ['TagResource', 'UntagResource', 'ListTagsForResource'] as const;

/** Every SWF action by its AWS name, with the input and output types of the AWS service model. */
export type SwfMethods = ServiceMethods<Swf.Actions>;
/** Every Step Functions action by its AWS name (except the tag actions SWF shares), with the model's types. */
export type SfnMethods = ServiceMethods<Omit<Sfn.Actions, (typeof SFN_NAMES_OF_SWF)[number]>>;

type Call = (action: string, input: object, opts: CallOptions) => Promise<unknown>;

/** The methods object of a list of action names, each calling `call(ActionName, input, opts)`. */
export function serviceMethods<M>(names: readonly string[], call: Call): M {
  const methods: Record<string, (input?: object, opts?: CallOptions) => Promise<unknown>> = {};
  for (const name of names) methods[`${name[0]!.toLowerCase()}${name.slice(1)}`] = (input = {}, opts = {}) => call(name, input, opts);
  return Object.freeze(methods) as M;
}
