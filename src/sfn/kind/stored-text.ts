import { resolveCause, type EnteredLookup } from '../compile/state-cause.js';

/**
 * What the host changes in the details the machines record, as it stores them: a payload equal to
 * the execution input keeps the input's own text (AWS returns `"[\"Hello\", \"World\"]"` with its
 * spaces, not re-serialized), and a cause marked by the machine names its state and entered event.
 */
export class StoredText {
  private compact: string | undefined;

  constructor(private readonly rawInput: string) {}

  /** JSON text as stored: the execution input's text when it denotes the same value. */
  json(text: string): string {
    if (text === this.rawInput) return text;
    this.compact ??= JSON.stringify(JSON.parse(this.rawInput));
    return text === this.compact ? this.rawInput : text;
  }

  /** One event's details as stored (a copy when anything changed). */
  details(attrs: Record<string, unknown>, entered: EnteredLookup): Record<string, unknown> {
    let out = attrs;
    const set = (key: string, value: string): void => {
      if (out === attrs) out = { ...attrs };
      out[key] = value;
    };
    for (const key of ['input', 'output']) {
      const v = attrs[key];
      if (typeof v === 'string' && this.json(v) !== v) set(key, this.json(v));
    }
    if (typeof attrs.cause === 'string') {
      const cause = resolveCause(attrs.cause, entered);
      if (cause !== attrs.cause) set('cause', cause);
    }
    return out;
  }
}
