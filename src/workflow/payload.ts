/**
 * How values cross the history: a string goes as it is (what boto3 or the aws CLI put in an input
 * arrives unchanged), anything else as JSON; what comes back is parsed as JSON when it is JSON, and
 * left a string when it is not. So a workflow interoperates with deciders and workers written by
 * hand against the raw API, whose inputs and results are strings of the user's choosing.
 */
export function encode(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function decode<T = unknown>(text: string | undefined | null): T {
  if (text === undefined || text === null || text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return text as T;
  }
}
