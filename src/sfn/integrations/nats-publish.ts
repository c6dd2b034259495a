import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { isLiteralSubject, MAX_PUBLISH_SUBJECT, publishSubject } from '../../nats/subjects.js';
import type { Integration, IntegrationResult } from './integration.js';

/**
 * `arn:actorflow:states:::nats:publish[.waitForTaskToken]`: publishes `Message` (any JSON, sent as
 * JSON text) on `<publish prefix>.<Subject>` with the optional `Headers`, and answers
 * `{ Subject: <full subject> }`. With `.waitForTaskToken` the Task then waits for a worker on that
 * subject to answer SendTaskSuccess/Failure with the token the definition put in the Message
 * (`$$.Task.Token`). Core NATS: at most once per invocation, and invoked again after a crash of
 * the engine before the answer was stored (subscribers should be idempotent by token).
 */
export interface NatsPublishDeps {
  nc: NatsConnection;
  /** The resolved AF_SFN_NATS_PUBLISH_PREFIX (src/config.ts). */
  prefix: string;
}

interface PublishParameters { Subject: string; Message: unknown; Headers?: Record<string, string> }

const FIELDS = new Set(['Subject', 'Message', 'Headers']);
/** Header names as NATS (and HTTP) take them. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

/** The problem with a Task's parameters, as its TaskFailed cause words it; undefined when they are right. */
function problemOf(p: unknown): string | undefined {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return 'The parameters must be an object with Subject and Message';
  const o = p as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => !FIELDS.has(k));
  if (extra.length) return `The field '${extra[0]}' is not supported by nats:publish`;
  if (typeof o.Subject !== 'string') return "The field 'Subject' is required and must be a string";
  if (!isLiteralSubject(o.Subject) || o.Subject.length > MAX_PUBLISH_SUBJECT) {
    return `The Subject '${o.Subject.slice(0, MAX_PUBLISH_SUBJECT)}' is not a literal subject (dot-separated tokens of letters, digits, '-' and '_', at most ${MAX_PUBLISH_SUBJECT} characters)`;
  }
  if (!Object.hasOwn(o, 'Message')) return "The field 'Message' is required";
  if (o.Headers !== undefined) {
    if (typeof o.Headers !== 'object' || o.Headers === null || Array.isArray(o.Headers)) return "The field 'Headers' must be an object of strings";
    for (const [k, v] of Object.entries(o.Headers)) {
      if (!HEADER_NAME.test(k)) return `The header name '${k}' is not valid`;
      if (typeof v !== 'string' || /[\r\n]/.test(v)) return `The header '${k}' must be a string on one line`;
    }
  }
  return undefined;
}

const failed = (cause: string): IntegrationResult => ({ ok: false, error: 'States.Runtime', cause });

export function natsPublishIntegration(d: NatsPublishDeps): Integration {
  return {
    resourceType: 'nats',
    actions: { publish: ['request', 'waitForTaskToken'] },
    // Only a fully static Parameters object can be checked when the definition is written.
    check: (_action, parameters) => problemOf(parameters),
    async invoke(call) {
      const problem = problemOf(call.parameters);
      if (problem) return failed(problem);
      const p = call.parameters as PublishParameters;
      const subject = publishSubject(d.prefix, p.Subject);
      const h = p.Headers && Object.keys(p.Headers).length > 0 ? natsHeaders() : undefined;
      for (const [k, v] of Object.entries(p.Headers ?? {})) h!.set(k, v);
      try {
        d.nc.publish(subject, JSON.stringify(p.Message ?? null), h ? { headers: h } : undefined);
        // The server has it once the flush returns (a publish is otherwise only buffered).
        await d.nc.flush();
      } catch (e) {
        return { ok: false, error: 'NATS.PublishFailed', cause: e instanceof Error ? e.message : String(e) };
      }
      return { ok: true, output: { Subject: subject } };
    },
  };
}
