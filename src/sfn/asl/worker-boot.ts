import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A worker entry beside `base` (a module's `import.meta.url`): `.ts` under tsx and vitest, `.js` once compiled. */
export function workerUrl(name: string, base: string): URL {
  return new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
}

/** Code that starts a worker at `url` (`eval: true`): a TypeScript entry is loaded through tsx's API (Node 20 workers ignore `--import tsx`). */
export function workerBoot(url: URL): string {
  if (!url.pathname.endsWith('.ts')) return `import(${JSON.stringify(url.href)})`;
  // The ESM entry of tsx's API (a require() resolve would give the CommonJS one, which cannot tsImport here).
  const pkgPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const api = pathToFileURL(join(dirname(pkgPath), pkg.exports['./esm/api']!.import.default)).href;
  return `import(${JSON.stringify(api)}).then(({ tsImport }) => tsImport(${JSON.stringify(url.href)}, ${JSON.stringify(import.meta.url)}))`;
}
