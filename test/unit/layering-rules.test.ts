import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

/* The layering rules of `npm run lint` (.dependency-cruiser.cjs), run on small trees that break them. */

const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as { forbidden: unknown[] };
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

/** The rules a tree of `files` (path → source) breaks. */
async function violations(files: Record<string, string>): Promise<string[]> {
  const base = mkdtempSync(join(tmpdir(), 'af-layers-'));
  dirs.push(base);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(base, dirname(path)), { recursive: true });
    writeFileSync(join(base, path), text);
  }
  const roots = ['src', 'machines'].filter((r) => Object.keys(files).some((f) => f.startsWith(`${r}/`)));
  const result = await cruise(roots, { baseDir: base, validate: true, ruleSet: { forbidden: config.forbidden } as never, tsPreCompilationDeps: true });
  const output = result.output as { summary: { violations: { rule: { name: string } }[] } };
  return output.summary.violations.map((v) => v.rule.name).sort();
}

describe('layering rules', () => {
  it('pass a tree that imports downward only', async () => {
    expect(await violations({
      'src/domain/faults.ts': 'export const f = 1;\n',
      'src/runtime/owner.ts': "import { f } from '../domain/faults.js';\nexport const o = f;\n",
      'src/service/op.ts': "import { o } from '../runtime/owner.js';\nexport const s = o;\n",
      'machines/m.ts': 'export const m = 1;\n',
    })).toEqual([]);
  });

  it('fail an import cycle', async () => {
    expect(await violations({
      'src/matching/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/matching/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    })).toEqual(['no-circular']);
  });

  it('fail an upward import (the runtime calling the service, the SDK importing the server)', async () => {
    expect(await violations({
      'src/service/op.ts': 'export const s = 1;\n',
      'src/runtime/owner.ts': "import { s } from '../service/op.js';\nexport const o = s;\n",
      'src/sdk/client.ts': "import { o } from '../runtime/owner.js';\nexport const c = o;\n",
    })).toEqual(['no-upward-from-runtime', 'no-upward-from-sdk']);
  });

  it('fail anything but xstate in machines/', async () => {
    expect(await violations({
      'src/nats/codec.ts': 'export const c = 1;\n',
      'machines/m.ts': "import { c } from '../src/nats/codec.js';\nexport const m = c;\n",
    })).toEqual(['machines-are-pure']);
  });
});
