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
      'src/protocol/faults.ts': 'export const f = 1;\n',
      'src/engine/host.ts': "import { f } from '../protocol/faults.js';\nexport const h = f;\n",
      'src/swf/kind.ts': "import { h } from '../engine/host.js';\nexport const k = h;\n",
      'src/service/context.ts': "import { k } from '../swf/kind.js';\nexport const c = k;\n",
      'src/sfn/op.ts': "import { c } from '../service/context.js';\nexport const o = c;\n",
      'machines/swf/m.ts': 'export const m = 1;\n',
    })).toEqual([]);
  });

  it('fail an import cycle', async () => {
    expect(await violations({
      'src/matching/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/matching/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    })).toEqual(['no-circular']);
  });

  it('fail an upward import (the engine calling a product, the SDK importing the server)', async () => {
    expect(await violations({
      'src/swf/kind.ts': 'export const k = 1;\n',
      'src/engine/host.ts': "import { k } from '../swf/kind.js';\nexport const h = k;\n",
      'src/sdk/client.ts': "import { h } from '../engine/host.js';\nexport const c = h;\n",
    })).toEqual(['no-upward-from-engine', 'no-upward-from-sdk']);
  });

  it('fail one product importing the other, and a transport importing a product', async () => {
    expect(await violations({
      'src/swf/poll.ts': 'export const p = 1;\n',
      'src/sfn/op.ts': "import { p } from '../swf/poll.js';\nexport const o = p;\n",
      'src/transport/gateway.ts': "import { o } from '../sfn/op.js';\nexport const g = o;\n",
    })).toEqual(['no-upward-from-sfn', 'no-upward-from-transport']);
  });

  it('fail the protocol importing anything of the engine', async () => {
    expect(await violations({
      'src/nats/subjects.ts': 'export const s = 1;\n',
      'src/protocol/wire.ts': "import { s } from '../nats/subjects.js';\nexport const w = s;\n",
    })).toEqual(['no-upward-from-protocol']);
  });

  it('fail anything but xstate in machines/', async () => {
    expect(await violations({
      'src/protocol/codec.ts': 'export const c = 1;\n',
      'machines/swf/m.ts': "import { c } from '../../src/protocol/codec.js';\nexport const m = c;\n",
    })).toEqual(['machines-are-pure']);
  });
});
