import { at, atIndex } from './definition-problems.js';

/** A member name that appears twice in one JSON object (JSON.parse silently keeps the last one). */
export interface DuplicateKey {
  /** The object holding the member, as a definition path (`/States`, `/States/A/Parameters`). */
  path: string;
  key: string;
}

type Frame = { kind: 'object'; path: string; keys: Set<string>; key: string; expectKey: boolean } | { kind: 'array'; path: string; index: number };

/** Every duplicated member name in `text`, which must already be known to be valid JSON. */
export function duplicateKeys(text: string): DuplicateKey[] {
  const out: DuplicateKey[] = [];
  const stack: Frame[] = [];
  const childPath = (): string => {
    const top = stack[stack.length - 1];
    if (top === undefined) return '';
    return top.kind === 'object' ? at(top.path, top.key) : atIndex(top.path, top.index);
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (c === '{') stack.push({ kind: 'object', path: childPath(), keys: new Set(), key: '', expectKey: true });
    else if (c === '[') stack.push({ kind: 'array', path: childPath(), index: 0 });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',' && top !== undefined) {
      if (top.kind === 'object') top.expectKey = true;
      else top.index += 1;
    } else if (c === '"') {
      const start = i;
      let escaped = false;
      for (i += 1; text[i] !== '"'; i++) {
        if (text[i] === '\\') {
          escaped = true;
          i += 1;
        }
      }
      if (top?.kind !== 'object' || !top.expectKey) continue;
      const raw = text.slice(start, i + 1);
      const key = escaped ? JSON.parse(raw) as string : raw.slice(1, -1);
      if (top.keys.has(key)) out.push({ path: top.path, key });
      top.keys.add(key);
      top.key = key;
      top.expectKey = false;
    }
  }
  return out;
}
