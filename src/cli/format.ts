/** Terminal output helpers of the CLI. */

/** Epoch seconds (the API's timestamps) as ISO 8601, or '-' when absent. */
export function isoTime(epochSeconds: unknown): string {
  return typeof epochSeconds === 'number' ? new Date(Math.round(epochSeconds * 1000)).toISOString() : '-';
}

/** Rows under a header, columns padded to their widest cell (the last column is not padded). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** `key  value` lines, keys aligned; entries with an undefined value are left out. */
export function keyValues(entries: readonly (readonly [string, string | undefined])[]): string {
  const shown = entries.filter((e): e is readonly [string, string] => e[1] !== undefined);
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
}

export function plural(n: number, word: string, words = `${word}s`): string {
  return `${n} ${n === 1 ? word : words}`;
}
