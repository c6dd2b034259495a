import type { Logger } from 'pino';

/**
 * Which reply subjects the engine answers on. The engine's NATS user may publish to streams and KV
 * buckets, and NATS does not check the reply subject a requester names: a reply to `af.hist.…` or
 * `$KV.af_runs.…` would be written into storage. So a request is answered only when its reply
 * subject lies under an inbox prefix a client can receive on, and holds no wildcard or empty token.
 */
export const DEFAULT_REPLY_PREFIXES: readonly string[] = ['_INBOX'];

/** Longest reply subject answered (nats.js inboxes are about 50 characters). */
const MAX_REPLY_LENGTH = 256;
const TOKEN = /^[^\s.*>]+$/;

/** Why a request was dropped unanswered (the label of the metric that counts them). */
export type DropReason = 'no_reply' | 'reply_subject';

/**
 * Checks a list of inbox prefixes (AF_API_REPLY_PREFIXES): plain subject tokens, none of them a
 * subject the engine stores under. Throws with an actionable message.
 */
export function checkReplyPrefixes(prefixes: readonly string[], storage: readonly string[]): readonly string[] {
  if (prefixes.length === 0) throw new Error('AF_API_REPLY_PREFIXES must name at least one inbox prefix (default _INBOX)');
  for (const p of prefixes) {
    if (!p.split('.').every((t) => TOKEN.test(t))) throw new Error(`AF_API_REPLY_PREFIXES: ${JSON.stringify(p)} is not a subject prefix (tokens without spaces, '*' or '>')`);
    const clash = storage.find((s) => p === s || p.startsWith(`${s}.`) || s.startsWith(`${p}.`) || p.startsWith('$'));
    if (clash !== undefined) throw new Error(`AF_API_REPLY_PREFIXES: ${JSON.stringify(p)} overlaps engine subjects (${clash}); use an inbox prefix such as _INBOX`);
  }
  return Object.freeze([...prefixes]);
}

/** Answers whether a reply subject may be answered; counts and (at most every 10 s) logs the drops. */
export class ReplyGuard {
  private readonly prefixes: readonly string[];
  private dropped = 0;
  private lastLog = 0;

  constructor(prefixes: readonly string[], private readonly onDrop: (reason: DropReason) => void, private readonly log: Logger,
    private readonly what = 'API request') {
    this.prefixes = prefixes.map((p) => `${p}.`);
  }

  /** True when `reply` may be answered; otherwise the request is counted as dropped. */
  allows(subject: string, reply: string | undefined): reply is string {
    const reason = ReplyGuard.problem(reply, this.prefixes);
    if (reason === undefined) return true;
    this.onDrop(reason);
    this.dropped++;
    const now = Date.now();
    if (now - this.lastLog >= 10_000) {
      this.log.warn({ subject, reply: reply?.slice(0, 120), reason, dropped: this.dropped }, `${this.what} dropped: its reply subject is not a client inbox`);
      this.lastLog = now;
      this.dropped = 0;
    }
    return false;
  }

  private static problem(reply: string | undefined, prefixes: readonly string[]): DropReason | undefined {
    if (!reply) return 'no_reply';
    if (reply.length > MAX_REPLY_LENGTH || !prefixes.some((p) => reply.startsWith(p))) return 'reply_subject';
    return reply.split('.').every((t) => TOKEN.test(t)) ? undefined : 'reply_subject';
  }
}
