import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsServerBinary } from '../../src/nats/server-binary.js';
import { ENGINE_NODE_FLAGS } from '../../src/node-flags.js';
import { startNatsServer, type NatsServerHandle } from '../helpers/nats-server.js';
import { until } from '../helpers/until.js';
import { importGraph, SDK_FILES, SDK_PACKAGES } from './import-graph.js';

/**
 * The package as a user gets it: `npm pack` (which builds dist/), the tarball installed into an empty
 * project (dependencies from the npm cache when it has them), then from that project: plain-Node ESM
 * import, tsc over the order workflow example, `actorflow --version`, and `actorflow serve` running
 * the order workflow for the installed SDK. No tsx there: the package must not need it.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The environment of a child: npm's own variables of the parent `npm test` left out (they would steer the child npm). */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  delete env.NATS_URL;
  return { ...env, AF_LOG_LEVEL: 'warn', ...extra };
}

interface Done { code: number | null; stdout: string; stderr: string }
function run(cmd: string, args: string[], cwd: string, env = childEnv(), timeoutMs = 150_000): Promise<Done> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.once('error', reject);
    p.once('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}
const ok = (r: Done, what: string) => { if (r.code !== 0) throw new Error(`${what} exited ${r.code}:\n${r.stdout}\n${r.stderr}`); return r; };

let dir: string;
let project: string;
let nats: NatsServerHandle | undefined;
let serve: ChildProcess | undefined;
const timings: Record<string, number> = {};

async function timed<T>(name: string, f: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  try { return await f(); } finally { timings[name] = Date.now() - t0; }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'actorflow-pack-'));
  project = join(dir, 'project');
  const packed = await timed('pack', async () => ok(await run('npm', ['pack', '--json', '--pack-destination', dir], ROOT), 'npm pack'));
  const tarball = join(dir, (JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string }>)[0]!.filename);
  await run('mkdir', ['-p', project], dir);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'af-user', private: true, type: 'module' }));
  await timed('install', async () => ok(await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, '@types/node@20'], project), 'npm install'));
}, 300_000);

afterAll(async () => {
  if (serve && serve.exitCode === null) {
    serve.kill('SIGTERM');
    await new Promise((r) => serve!.once('exit', r));
  }
  await nats?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  console.log(`pack-and-install timings (ms): ${JSON.stringify(timings)}`);
});

describe('the installed package', () => {
  it('holds dist/, the bin, nats.conf and the LICENSE, and neither src/ nor tsx', () => {
    const pkg = join(project, 'node_modules', 'actorflow');
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { license: string; private?: boolean };
    expect(manifest.license).toBe('Apache-2.0');
    expect(manifest.private).toBeUndefined();
    for (const f of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/main.js', 'dist/src/console/static/index.html', 'bin/actorflow.js', 'nats.conf', 'LICENSE']) {
      expect(() => readFileSync(join(pkg, f)), f).not.toThrow();
    }
    expect(() => readFileSync(join(pkg, 'src', 'index.ts'))).toThrow();
    expect(() => readFileSync(join(project, 'node_modules', 'tsx', 'package.json'))).toThrow();
  });

  it('imports in plain Node ESM, and its entry loads nothing of the server', async () => {
    const r = ok(await run(process.execPath, ['--input-type=module', '-e',
      "const m = await import('actorflow'); console.log(JSON.stringify(Object.keys(m).sort()))"], project), 'import');
    expect(JSON.parse(r.stdout)).toEqual(expect.arrayContaining(['ActorFlowClient', 'Decider', 'ActivityWorker', 'decisions', 'newEvents', 'activityResult', 'startSfnActivityWorker', 'Fault']));
    const pkg = join(project, 'node_modules', 'actorflow');
    const g = importGraph(join(pkg, 'dist', 'src', 'index.js'), pkg);
    expect(g.files.filter((f) => !SDK_FILES.test(f))).toEqual([]);
    expect(g.packages.filter((p) => !SDK_PACKAGES.includes(p))).toEqual([]);
  }, 60_000);

  it('prints its version with npx actorflow --version', async () => {
    const r = ok(await run('npx', ['--no-install', 'actorflow', '--version'], project), 'actorflow --version');
    expect(r.stdout.trim()).toBe(VERSION);
  }, 60_000);

  it('runs the order workflow example, compiled by tsc against the installed types, on an installed `actorflow serve`', async () => {
    const example = readFileSync(join(ROOT, 'examples', 'order-workflow.ts'), 'utf8').replace("from '../src/index.js'", "from 'actorflow'");
    expect(example).toContain("from 'actorflow'");
    writeFileSync(join(project, 'order.ts'), example);
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, types: ['node'], outDir: '.' },
      files: ['order.ts'],
    }));
    await timed('tsc', async () => ok(await run(process.execPath, [TSC, '-p', 'tsconfig.json'], project), 'tsc'));

    nats = await startNatsServer();
    serve = spawn(join(project, 'node_modules', '.bin', 'actorflow'), ['serve', '--nats', nats.url, '--http-port', '0'], {
      cwd: project, env: childEnv({ NATS_SERVER_BIN: natsServerBinary() }), stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    serve.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    serve.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    await until(() => out.includes('"ready":true') || serve!.exitCode !== null, { timeoutMs: 60_000 });
    expect(out).toContain('"ready":true');
    // The bin's shebang starts node with the engine's flags (src/node-flags.ts): env execs node in place, same pid.
    const argv = readFileSync(`/proc/${serve.pid}/cmdline`, 'utf8').split('\0');
    for (const flag of ENGINE_NODE_FLAGS) expect(argv).toContain(flag);

    const r = await timed('order', async () => ok(await run(process.execPath, ['order.js'], project, childEnv({ NATS_URL: nats!.url, AF_DOMAIN: 'packed' }), 60_000), 'order.js'));
    const summary = JSON.parse(r.stdout.trim().split('\n').pop()!) as { closeStatus: string; result: string };
    expect(summary.closeStatus).toBe('COMPLETED');
    expect(JSON.parse(summary.result)).toMatchObject({ orderId: 'o-1', VerifyOrder: 'ok', RecordCompletion: 'ok' });
  }, 240_000);
});
