/**
 * Host patterns of the HTTP task's configuration: `scheme://host[:port]`, where the host may start
 * with `*.` (any subdomain, not the bare domain) and the port may be `*`; no path, no user info.
 * A URL is allowed when its scheme, host and port match one pattern exactly (the port of a URL that
 * names none is its scheme's default).
 */
export interface HostPattern {
  readonly scheme: 'http:' | 'https:';
  /** Lower case; `*.example.com` kept as the suffix `.example.com` with `wildcard` set. */
  readonly host: string;
  readonly wildcard: boolean;
  /** undefined: any port. */
  readonly port: number | undefined;
  /** As written, for messages. */
  readonly text: string;
}

const DEFAULT_PORT = { 'http:': 80, 'https:': 443 } as const;
const PATTERN = /^(https?):\/\/(\*\.)?([^/:?#@*\s]+|\[[0-9a-fA-F:.]+\])(?::(\d{1,5}|\*))?\/?$/;

/** Reads one pattern; throws with an actionable message when it is not one. */
export function parseHostPattern(text: string, where: string): HostPattern {
  const m = PATTERN.exec(text);
  if (!m) throw new Error(`${where}: '${text}' is not a host pattern (scheme://host[:port], host may start with '*.', port may be '*'; no path)`);
  const [, scheme, star, rawHost, rawPort] = m as unknown as [string, 'http' | 'https', string | undefined, string, string | undefined];
  const port = rawPort === undefined ? DEFAULT_PORT[`${scheme}:`] : rawPort === '*' ? undefined : Number(rawPort);
  if (port !== undefined && (port < 1 || port > 65_535)) throw new Error(`${where}: port ${port} of '${text}' is out of range`);
  // The URL parser lower-cases and punycodes the host as it will for the request's URL.
  const host = new URL(`${scheme}://${rawHost}`).hostname;
  return Object.freeze({ scheme: `${scheme}:` as const, host: star ? `.${host}` : host, wildcard: star !== undefined, port, text });
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  return url.port === '' ? DEFAULT_PORT[url.protocol as keyof typeof DEFAULT_PORT] : Number(url.port);
}

/** Whether `url` (http or https) matches one of `patterns`. */
export function hostAllowed(url: URL, patterns: readonly HostPattern[]): boolean {
  const host = url.hostname.toLowerCase();
  const port = portOf(url);
  return patterns.some((p) => p.scheme === url.protocol
    && (p.wildcard ? host.endsWith(p.host) && host.length > p.host.length : host === p.host)
    && (p.port === undefined || p.port === port));
}

/** `scheme://host:port` of a URL, as messages show it (never its path, query or user info). */
export const originOf = (url: URL): string => `${url.protocol}//${url.hostname}:${portOf(url)}`;
