import { readFileSync } from 'node:fs';
import { identifierProblem } from '../protocol/validate.js';

const KEY_ID = /^[A-Za-z0-9_.+=@-]{1,128}$/;

/** Every domain, and Step Functions (which has no domains), in a key's domain list. */
export const ALL_DOMAINS = '*';

/**
 * Access keys as configured: access key id → secret (what SigV4 verifies with), plus `domains`, the
 * domain list of each key limited to some domains. A key absent from `domains` is unrestricted.
 */
export class AccessKeyTable extends Map<string, string> {
  readonly domains = new Map<string, ReadonlySet<string>>();
}

/**
 * Parses `AKID:SECRET` or `AKID:SECRET:domainA|domainB` entries separated by commas or new lines
 * (blank lines and `#` comments are skipped; secrets may hold no `:`). Throws with the entry's
 * position, never its secret.
 */
export function parseAccessKeys(text: string, source: string): AccessKeyTable {
  const keys = new AccessKeyTable();
  const entries = text.split(/[,\n]/).map((e) => e.trim()).filter((e) => e !== '' && !e.startsWith('#'));
  entries.forEach((entry, i) => {
    const [id = '', secret = '', list, ...more] = entry.split(':');
    if (!KEY_ID.test(id) || secret === '' || /\s/.test(secret) || more.length > 0) {
      throw new Error(`${source}: entry ${i + 1} is not AKID:SECRET or AKID:SECRET:domain|… (access key ids use [A-Za-z0-9_.+=@-], secrets have no spaces or colons)`);
    }
    if (keys.has(id)) throw new Error(`${source}: access key id ${id} is listed twice`);
    keys.set(id, secret);
    if (list !== undefined) keys.domains.set(id, domainList(list, `${source}: entry ${i + 1} (${id})`));
  });
  return keys;
}

function domainList(list: string, where: string): ReadonlySet<string> {
  const names = list.split('|').map((d) => d.trim());
  for (const d of names) {
    const problem = d === '' ? 'is empty' : d.length > 256 ? 'is longer than 256 characters' : d === ALL_DOMAINS ? undefined : identifierProblem(d);
    if (problem) throw new Error(`${where}: domain ${JSON.stringify(d.slice(0, 64))} ${problem}`);
  }
  return new Set(names);
}

/**
 * The keys of AF_ACCESS_KEYS ("AKID:SECRET,AKID2:SECRET2:domainA|domainB,…") and AF_ACCESS_KEYS_FILE
 * (one such entry per line).
 */
export function accessKeysFromEnv(env: NodeJS.ProcessEnv = process.env): AccessKeyTable {
  const keys = new AccessKeyTable();
  const add = (more: AccessKeyTable, source: string) => {
    for (const [id, secret] of more) {
      if (keys.has(id)) throw new Error(`${source}: access key id ${id} is also in another source`);
      keys.set(id, secret);
      const domains = more.domains.get(id);
      if (domains) keys.domains.set(id, domains);
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
