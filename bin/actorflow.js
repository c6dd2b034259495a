#!/usr/bin/env -S node --max-semi-space-size=64
// The `actorflow` CLI. An installed package runs the compiled CLI (dist/src/cli/main.js) with plain
// Node. A git checkout (src/ present, tsx installed) runs the source through tsx instead, so a
// dist/ left over from an earlier `npm run build` never runs stale code.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
const compiled = new URL('../dist/src/cli/main.js', import.meta.url);

async function tsxLoader() {
  try {
    return await import('tsx/esm/api');
  } catch {
    return undefined;
  }
}

const tsx = existsSync(source) ? await tsxLoader() : undefined;
if (tsx) {
  tsx.register();
  await import(source.href);
} else if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  console.error('actorflow: dist/ is missing: run "npm run build" (or install tsx to run from src/)');
  process.exit(1);
}
