import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENGINE_NODE_FLAGS } from '../../src/node-flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the Node flags of an engine process (src/node-flags.ts)', () => {
  it('are passed by npm start, npm run serve and npm run demo, before the script tsx runs', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['start', 'serve', 'demo']) {
      const tsx = scripts[name]!.slice(scripts[name]!.indexOf('tsx '));
      for (const flag of ENGINE_NODE_FLAGS) expect(tsx, name).toMatch(new RegExp(`^tsx (--\\S+ )*${flag} (--\\S+ )*src/(main|serve)\\.ts`));
    }
  });

  it('are in the actorflow bin\'s shebang and in the cluster script', () => {
    const shebang = readFileSync(join(ROOT, 'bin', 'actorflow.js'), 'utf8').split('\n')[0]!;
    expect(shebang.startsWith('#!/usr/bin/env -S node ')).toBe(true);
    for (const flag of ENGINE_NODE_FLAGS) expect(shebang.split(' ')).toContain(flag);
    expect(readFileSync(join(ROOT, 'scripts', 'cluster.ts'), 'utf8')).toContain("spawn(process.execPath, [...ENGINE_NODE_FLAGS, '--import', 'tsx', 'src/serve.ts']");
  });

  it('give this node a young generation that grows past 32 MB (V8\'s default on Node 20) under allocation', () => {
    // Keeps up to 50,000 small objects alive while allocating 3 million: the new space grows past 32 MB only if allowed.
    const script = 'let k=[];for(let i=0;i<3e6;i++){k.push({a:i,b:[i],c:"x"+i});if(k.length>5e4)k=[]}'
      + 'console.log(require("v8").getHeapSpaceStatistics().find((s)=>s.space_name==="new_space").space_size)';
    const newSpace = (flags: readonly string[]) => Number(execFileSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' }).trim());
    const tuned = newSpace(ENGINE_NODE_FLAGS);
    expect(tuned).toBeGreaterThan(32 * 1024 * 1024);
    expect(tuned).toBeGreaterThanOrEqual(newSpace([]));
  });
});
