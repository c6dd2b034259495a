import { isLoopback } from './http-options.js';

/**
 * Whether a request's `Host` header names this gateway as a browser page on this machine may: a
 * loopback name or address, or the configured host. Any other name is a DNS-rebinding attempt
 * (another site's page whose name now resolves to 127.0.0.1), refused while no access keys protect the API.
 */
export function hostAllowed(header: string | undefined, configured: string): boolean {
  if (!header) return false;
  const name = header.startsWith('[') ? header.slice(0, header.indexOf(']') + 1) : header.replace(/:\d+$/, '');
  return isLoopback(name) || name.replace(/^\[|\]$/g, '').toLowerCase() === configured.replace(/^\[|\]$/g, '').toLowerCase();
}
