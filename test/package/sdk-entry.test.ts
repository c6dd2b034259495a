import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph, SDK_FILES, SDK_PACKAGES } from './import-graph.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the SDK entry (src/index.ts)', () => {
  it('loads the SDK, the protocol and the NATS client only: nothing of the server', () => {
    const g = importGraph(`${ROOT}src/index.ts`, ROOT);
    expect(g.files).toContain('src/sdk/client.ts');
    expect(g.files.filter((f) => !SDK_FILES.test(f))).toEqual([]);
    expect(g.packages.filter((p) => !SDK_PACKAGES.includes(p))).toEqual([]);
  });

  it('is listed by name: no export *', async () => {
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(`${ROOT}src/index.ts`, 'utf8')).not.toMatch(/export \*/);
  });

  it('would catch a server import: the server entry loads prom-client and xstate', () => {
    const g = importGraph(`${ROOT}src/server-entry.ts`, ROOT);
    expect(g.packages).toEqual(expect.arrayContaining(['prom-client', 'xstate', '@statelyai/inspect']));
  });
});
