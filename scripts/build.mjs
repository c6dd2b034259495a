// `npm run build`: compiles src/ and machines/ to dist/ (JavaScript + declarations, tsconfig.build.json)
// and copies the files the compiled code reads at run time (the web console's static assets).
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
cpSync(new URL('../src/console/static/', import.meta.url), new URL('../dist/src/console/static/', import.meta.url), { recursive: true });
