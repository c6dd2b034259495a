import { readFileSync } from 'node:fs';
import type { AccessKeys } from './sigv4.js';

const KEY_ID = /^[A-Za-z0-9_.+=@-]{1,128}$/;

/**
 * Parses `AKID:SECRET` entries separated by commas or new lines (blank lines and `#` comments are
 * skipped). Throws with the entry's position, never its secret.
 */
export function parseAccessKeys(text: string, source: string): Map<string, string> {
  const keys = new Map<string, string>();
  const entries = text.split(/[,\n]/).map((e) => e.trim()).filter((e) => e !== '' && !e.startsWith('#'));
  entries.forEach((entry, i) => {
    const colon = entry.indexOf(':');
    const id = entry.slice(0, colon);
    const secret = entry.slice(colon + 1);
    if (colon < 0 || !KEY_ID.test(id) || secret === '' || /\s/.test(secret)) {
      throw new Error(`${source}: entry ${i + 1} is not AKID:SECRET (access key ids use [A-Za-z0-9_.+=@-], secrets have no spaces)`);
    }
    if (keys.has(id)) throw new Error(`${source}: access key id ${id} is listed twice`);
    keys.set(id, secret);
  });
  return keys;
}

/** The keys of AF_ACCESS_KEYS ("AKID:SECRET,…") and AF_ACCESS_KEYS_FILE (one AKID:SECRET per line). */
export function accessKeysFromEnv(env: NodeJS.ProcessEnv = process.env): AccessKeys {
  const keys = new Map<string, string>();
  const add = (more: Map<string, string>, source: string) => {
    for (const [id, secret] of more) {
      if (keys.has(id)) throw new Error(`${source}: access key id ${id} is also in another source`);
      keys.set(id, secret);
    }
  };
  if (env.AF_ACCESS_KEYS) add(parseAccessKeys(env.AF_ACCESS_KEYS, 'AF_ACCESS_KEYS'), 'AF_ACCESS_KEYS');
  if (env.AF_ACCESS_KEYS_FILE) {
    let text: string;
    try {
      text = readFileSync(env.AF_ACCESS_KEYS_FILE, 'utf8');
    } catch (e) {
      throw new Error(`AF_ACCESS_KEYS_FILE: cannot read ${env.AF_ACCESS_KEYS_FILE}: ${(e as Error).message}`, { cause: e });
    }
    add(parseAccessKeys(text, `AF_ACCESS_KEYS_FILE ${env.AF_ACCESS_KEYS_FILE}`), 'AF_ACCESS_KEYS_FILE');
  }
  return keys;
}
