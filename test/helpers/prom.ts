/** One sample of the Prometheus text format: name, labels, value. */
export interface Sample { name: string; labels: Record<string, string>; value: number }

/** A small parser of the Prometheus text exposition format (samples only; # lines skipped). */
export function parseProm(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const v = m[3]!;
    out.push({ name: m[1]!, labels, value: v === '+Inf' ? Infinity : v === '-Inf' ? -Infinity : Number(v) });
  }
  return out;
}

/** The value of the one sample with exactly these labels (0 when the series is absent). */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  const want = JSON.stringify(Object.entries(labels).sort());
  const hits = samples.filter((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want);
  if (hits.length > 1) throw new Error(`${name} ${want} appears ${hits.length} times`);
  return hits[0]?.value ?? 0;
}

/** GET <url>/metrics, parsed. */
export async function scrapeMetrics(httpUrl: string): Promise<Sample[]> {
  const res = await fetch(`${httpUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return parseProm(await res.text());
}
