import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's `chromium` (scripts/ensure-deps.sh installs it), driven by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';
/** Screenshots of the console tests (CI keeps the folder as an artifact). */
export const SHOTS = 'test-results/console';

export interface ConsoleBrowser {
  page: Page;
  /** Requests the page made to anything but the node (the console loads nothing from elsewhere). */
  foreign: string[];
  shot(name: string, fullPage?: boolean): Promise<unknown>;
  close(): Promise<void>;
}

/** Headless Chromium with one page on the console at `base`; a page error fails the test. */
export async function openConsoleBrowser(base: string): Promise<ConsoleBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`The console test needs headless Chromium at ${CHROMIUM}, which is not installed: `
      + 'run `apt-get install -y chromium` (scripts/ensure-deps.sh and .ci/run do it as root).');
  }
  mkdirSync(SHOTS, { recursive: true });
  const userDataDir = mkdtempSync(join(tmpdir(), 'af-console-chromium-'));
  let browser: BrowserContext;
  try {
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
      viewport: { width: 1360, height: 900 },
      timeout: 20_000,
    });
  } catch (e) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw new Error(`Headless Chromium (${CHROMIUM}) failed to start: ${(e as Error).message}`, { cause: e });
  }
  const page = browser.pages()[0] ?? await browser.newPage();
  const foreign: string[] = [];
  page.on('request', (r) => { if (!r.url().startsWith(base) && !r.url().startsWith('data:')) foreign.push(r.url()); });
  page.on('pageerror', (e) => { throw e; });
  return {
    page, foreign,
    shot: (name, fullPage = true) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage }),
    async close() {
      await browser.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
