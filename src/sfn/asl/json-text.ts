/**
 * JSON text of a value without recursion: JSON.stringify, structuredClone and msgpack all recurse
 * and throw (or abort) on data a few thousand levels deep, which a 256 KiB input can easily be.
 */

/**
 * - `json`: what JSON.stringify writes (members in insertion order);
 * - `sorted`: JSON with object keys sorted, so equal JSON values give equal text;
 * - `java`: how AWS's Java runtime prints a value inside States.Format (`{a=1, b=[x, y]}`, bare strings).
 */
export type JsonStyle = 'json' | 'sorted' | 'java';

type Work = { text: string } | { value: unknown; depth: number };

/**
 * Writes `v` in `style`, piece by piece, to `emit`. `onContainer(depth)` is told of every array and
 * object (the outermost has depth 1) before its members: either callback may throw to stop the walk.
 */
export function writeJson(v: unknown, style: JsonStyle, emit: (piece: string) => void, onContainer?: (depth: number) => void): void {
  const stack: Work[] = [{ value: v, depth: 0 }];
  while (stack.length > 0) {
    const w = stack.pop()!;
    if ('text' in w) {
      emit(w.text);
      continue;
    }
    const x = w.value;
    if (x === null || typeof x !== 'object') {
      emit(scalar(x, style));
      continue;
    }
    const depth = w.depth + 1;
    onContainer?.(depth);
    const sep = style === 'java' ? ', ' : ',';
    if (Array.isArray(x)) {
      stack.push({ text: ']' });
      for (let i = x.length - 1; i >= 0; i -= 1) {
        stack.push({ value: x[i], depth });
        if (i > 0) stack.push({ text: sep });
      }
      emit('[');
      continue;
    }
    const obj = x as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined || style === 'java');
    if (style === 'sorted') keys.sort();
    stack.push({ text: '}' });
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const k = keys[i]!;
      stack.push({ value: obj[k], depth });
      stack.push({ text: style === 'java' ? `${k}=` : `${JSON.stringify(k)}:` });
      if (i > 0) stack.push({ text: sep });
    }
    emit('{');
  }
}

function scalar(x: unknown, style: JsonStyle): string {
  if (typeof x === 'string') return style === 'java' ? x : JSON.stringify(x);
  // As JSON.stringify writes an undefined array element (undefined members were skipped above).
  return JSON.stringify(x) ?? 'null';
}

/** The text of `v` in `style` (`json`: what JSON.stringify returns, `undefined` → 'undefined'), at any depth. */
export function jsonText(v: unknown, style: JsonStyle = 'json'): string {
  if (v === undefined) return 'undefined';
  const pieces: string[] = [];
  writeJson(v, style, (p) => { pieces.push(p); });
  return pieces.join('');
}

/**
 * How much of a value an error cause quotes. AWS's causes hold at most 32,768 characters; a cause
 * quoting the whole input, caught into the data and quoted again, would otherwise double each round.
 */
export const QUOTE_CHARS = 16_384;

const STOP = Symbol('stop');

/** The JSON text of `v` for an error cause: cut after `max` characters (ending `…`), at any depth. */
export function jsonQuote(v: unknown, max = QUOTE_CHARS): string {
  if (v === undefined) return 'undefined';
  const pieces: string[] = [];
  let length = 0;
  try {
    writeJson(v, 'json', (p) => {
      pieces.push(p);
      length += p.length;
      if (length > max) throw STOP;
    });
  } catch (e) {
    if (e !== STOP) throw e;
    return `${pieces.join('').slice(0, max)}…`;
  }
  return pieces.join('');
}
