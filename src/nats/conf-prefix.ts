/**
 * nats.conf for an engine of another AF_PREFIX: the users' permissions name the engine's subjects
 * (`"af.hist.>"`, …) and buckets (`"$KV.af_runs.>"`, …) for the default prefix `af`, and a node of
 * another prefix would stop at its first write with a Permissions Violation. Only quoted subjects
 * change (comments and `_AF_ENGINE_INBOX` stay as they are).
 */
export function confWithPrefix(conf: string, prefix: string): string {
  if (prefix === 'af') return conf;
  return conf.replace(/(["'])af\./g, `$1${prefix}.`).replace(/(["'])\$KV\.af_/g, `$1$KV.${prefix}_`);
}
