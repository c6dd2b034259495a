import type { ArrayFormat } from './http-parameters.js';

/**
 * The HTTP task's request body: RequestBody with the connection's body parameters merged in (the
 * connection's win), sent as JSON, as the string given, or URL-encoded with AWS's ArrayFormat:
 * INDICES `a[0]=x&a[1]=y` (the default), REPEAT `a=x&a=y`, COMMAS `a=x,y`, BRACKETS `a[]=x&a[]=y`;
 * nested objects as `o[k]=v`.
 */
export interface EncodedBody {
  readonly bytes: Buffer;
  readonly contentType: string;
}

const JSON_TYPE = 'application/json; charset=UTF-8';
const FORM_TYPE = 'application/x-www-form-urlencoded';

const enc = encodeURIComponent;
const text = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

function encodeValue(key: string, v: unknown, fmt: ArrayFormat, out: string[]): void {
  if (Array.isArray(v)) {
    if (fmt === 'COMMAS') { out.push(`${key}=${v.map((x) => enc(text(x))).join(',')}`); return; }
    v.forEach((x, i) => encodeValue(fmt === 'INDICES' ? `${key}[${i}]` : fmt === 'BRACKETS' ? `${key}[]` : key, x, fmt, out));
    return;
  }
  if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) encodeValue(`${key}[${enc(k)}]`, x, fmt, out);
    return;
  }
  out.push(`${key}=${enc(text(v))}`);
}

/** `application/x-www-form-urlencoded` text of an object. */
export function urlEncode(body: Record<string, unknown>, fmt: ArrayFormat): string {
  const out: string[] = [];
  for (const [k, v] of Object.entries(body)) encodeValue(enc(k), v, fmt, out);
  return out.join('&');
}

/**
 * The bytes to send, or undefined for no body. A string RequestBody cannot take the connection's
 * body parameters: that is reported as a problem (thrown as an Error with the cause's text).
 */
export function encodeBody(body: unknown, connectionBody: Readonly<Record<string, string>>, urlEncoded: boolean, fmt: ArrayFormat): EncodedBody | undefined {
  const extra = Object.keys(connectionBody).length > 0;
  let merged = body;
  if (extra) {
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw new Error('The connection has body parameters, so RequestBody must be a JSON object to merge them into');
    }
    merged = { ...(body as Record<string, unknown> | undefined), ...connectionBody };
  }
  if (merged === undefined) return undefined;
  if (urlEncoded) return { bytes: Buffer.from(urlEncode(merged as Record<string, unknown>, fmt)), contentType: FORM_TYPE };
  if (typeof merged === 'string') return { bytes: Buffer.from(merged), contentType: JSON_TYPE };
  return { bytes: Buffer.from(JSON.stringify(merged)), contentType: JSON_TYPE };
}
