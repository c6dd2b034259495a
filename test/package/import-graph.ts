import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/** The modules one entry file loads: its files (relative to `root`) and the packages it imports. */
export interface ImportGraph { files: string[]; packages: string[] }

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

/**
 * Walks the static and literal dynamic imports of `entry` (compiled .js, or .ts sources whose
 * imports name .js files), without running it. Type-only imports are left out: they load nothing.
 */
export function importGraph(entry: string, root: string): ImportGraph {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
    for (const m of text.matchAll(SPECIFIER)) {
      if (/^\s*;?\s*(import|export)\s+type\s/.test(m[0])) continue;
      const spec = (m[1] ?? m[2] ?? m[3])!;
      if (!spec.startsWith('.')) {
        packages.add(spec.startsWith('node:') ? 'node:' : spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/'));
        continue;
      }
      const target = resolve(dirname(file), spec);
      visit(existsSync(target) ? target : target.replace(/\.js$/, '.ts'));
    }
  };
  visit(entry);
  return { files: [...files].map((f) => relative(root, f)).sort(), packages: [...packages].sort() };
}

/** What the SDK entry may load: the SDK, the protocol, how to connect; the NATS client and msgpackr. */
export const SDK_FILES = /^(dist\/)?src\/(index\.(js|ts)|sdk\/|workflow\/|protocol\/|nats\/(connect-options|request-fast-path|error-causes)\.(js|ts)$)/;
export const SDK_PACKAGES = ['@nats-io/nats-core', '@nats-io/transport-node', 'msgpackr', 'node:'];
