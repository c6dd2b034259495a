import { AslError } from './errors.js';

/**
 * Bounded work per transition. A JSONPath (deep scan, filters, wildcards, slices), an intrinsic
 * function, a payload template or a Choice state's rules run against one Budget: a count of the
 * nodes they visit or produce, of the JSON characters they produce, and a cap on how deep what they
 * produce nests. Past a bound the evaluation stops with the AWS error of its language
 * (States.Runtime for paths, States.IntrinsicFailure for intrinsics, States.QueryEvaluationError for
 * JSONata when it comes), so one execution can neither spin the node nor make V8 abort.
 */

export interface EvaluationLimits {
  /** Nodes one evaluation may visit or produce (a deep scan visits every descendant of every match). */
  steps: number;
  /**
   * JSON characters one evaluation may produce: four times AWS's 256 KiB payload quota, so that a
   * result merely too large still meets States.DataLimitExceeded where the state's output is checked.
   */
  chars: number;
  /** How deep a value an evaluation produces may nest (the payload depth bound). */
  depth: number;
}

export const EVALUATION_LIMITS: Readonly<EvaluationLimits> = Object.freeze({ steps: 1_000_000, chars: 4 * 262_144, depth: 1000 });

/** The errors a bounded evaluation fails with: the error names AWS uses for each expression language. */
export type BoundedError = 'States.Runtime' | 'States.IntrinsicFailure' | 'States.QueryEvaluationError';

export type Bound = keyof EvaluationLimits;

const SUBJECT_CHARS = 200;

/** The texts of the bound errors (one place, for AWS wording). `subject` names what was evaluated. */
export const BOUND_MESSAGES: Readonly<Record<Bound, (subject: string, limit: number) => string>> = {
  steps: (subject, limit) => `The evaluation of ${subject} exceeded the limit of ${limit} steps`,
  chars: (subject, limit) => `The evaluation of ${subject} produced more than ${limit} characters of JSON`,
  depth: (subject, limit) => `The evaluation of ${subject} produced a value nested deeper than ${limit} levels`,
};

/** `the JSONPath '$.a'`, `States.Format`, …: cut short so a huge expression does not make a huge cause. */
function shorten(subject: string): string {
  return subject.length <= SUBJECT_CHARS ? subject : `${subject.slice(0, SUBJECT_CHARS)}…`;
}

interface Used {
  steps: number;
  chars: number;
}

/** What one evaluation may still do. Views made with `as()` share the counters and differ in the error they raise. */
export class Budget {
  private constructor(
    readonly error: BoundedError,
    readonly subject: string,
    private readonly used: Used,
    readonly limits: Readonly<EvaluationLimits>,
  ) {}

  /** A fresh budget for one evaluation of `subject` that fails with `error`. */
  static start(error: BoundedError, subject: string, limits: Readonly<EvaluationLimits> = EVALUATION_LIMITS): Budget {
    return new Budget(error, subject, { steps: 0, chars: 0 }, limits);
  }

  /** The same counters, failing with `error` about `subject` (an intrinsic inside a template, a path inside an intrinsic). */
  as(error: BoundedError, subject: string): Budget {
    return new Budget(error, subject, this.used, this.limits);
  }

  /** Counts `n` visited or produced nodes. */
  step(n = 1): void {
    this.used.steps += n;
    if (this.used.steps > this.limits.steps) this.exceeded('steps');
  }

  /** Counts `n` produced characters. */
  chars(n: number): void {
    this.used.chars += n;
    if (this.used.chars > this.limits.chars) this.exceeded('chars');
  }

  /**
   * Counts the JSON size of a produced value (an estimate: strings without their escapes) and checks
   * its depth, without recursion; stops as soon as a bound is passed, so its cost is bounded too.
   */
  charge(value: unknown): void {
    const values: unknown[] = [value];
    const depths: number[] = [0];
    while (values.length > 0) {
      const x = values.pop();
      const d = depths.pop()!;
      let n: number;
      if (typeof x === 'string') n = x.length + 2;
      else if (typeof x === 'number') n = String(x).length;
      else if (x === null || typeof x !== 'object') n = 5;
      else {
        if (d + 1 > this.limits.depth) this.exceeded('depth');
        if (Array.isArray(x)) {
          n = 1 + Math.max(1, x.length);
          for (const c of x) {
            values.push(c);
            depths.push(d + 1);
          }
        } else {
          const keys = Object.keys(x);
          n = 1 + Math.max(1, keys.length);
          for (const k of keys) {
            n += k.length + 3;
            values.push((x as Record<string, unknown>)[k]);
            depths.push(d + 1);
          }
        }
      }
      this.chars(n);
    }
  }

  /** Fails the evaluation: the AslError of this budget's language. */
  exceeded(bound: Bound): never {
    throw new AslError(this.error, BOUND_MESSAGES[bound](shorten(this.subject), this.limits[bound]));
  }
}
