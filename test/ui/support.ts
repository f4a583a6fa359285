/**
 * Helpers for the admin UI's browser tests: Debian's Chromium (/usr/bin/chromium, never a
 * downloaded build) driven by playwright-core, a real `docdb serve` with seeded data, bounded
 * waits, and screenshots of a screen in both colour schemes written to test-output/ui/.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { makeTempDir } from '../support/temp-dir.js';
import { freePort, ROOT, request, type ServeProcess, startServe } from '../e2e/support.js';

/** Where Debian's chromium package installs the browser; `.ci/run` installs it when missing. */
export const CHROMIUM = '/usr/bin/chromium';
/** Bounds each wait for the page: a broken screen fails its test instead of hanging it. */
export const UI_TIMEOUT_MS = 10_000;
export const SCREENSHOTS_DIR = path.join(ROOT, 'test-output/ui');

/** True when the UI build exists (npm run build made it), as the node serves it. */
export function uiBuilt(): boolean {
  return fs.existsSync(path.join(ROOT, 'admin-ui/out/index.html'));
}

export async function launch(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does it)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // CI runs as root, where Chromium refuses to start with its sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
    timeout: UI_TIMEOUT_MS * 2,
  });
}

/** A page at 1280×800 (or `width`) whose waits are bounded and whose errors are kept. */
export async function openPage(
  browser: Browser,
  options: { width?: number; height?: number } = {},
): Promise<Page & { errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    acceptDownloads: true,
  });
  const page = (await context.newPage()) as Page & { errors: string[] };
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  page.errors = [];
  page.on('pageerror', (error) => page.errors.push(error.message));
  return page;
}

export interface UiNode {
  proc: ServeProcess & { url: string };
  url: string;
  dir: string;
  cleanup(): void;
}

/** Starts `docdb serve` on a fresh port and data dir, with `args`, seeded when `orders` > 0. */
export async function startNode(
  options: { args?: string[]; orders?: number; apiKey?: string } = {},
): Promise<UiNode> {
  const temp = makeTempDir('docdb-ui-');
  const port = await freePort();
  const args = ['--port', String(port), '--data-dir', 'data', ...(options.args ?? [])];
  if (options.apiKey) args.push('--api-key', options.apiKey);
  const proc = await startServe(args, { cwd: temp.dir, port });
  if (options.orders) {
    const seeded = await request(`${proc.url}/seed`, {
      method: 'POST',
      body: { orders: options.orders, seed: 7 },
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    });
    if (seeded.status !== 200)
      throw new Error(`POST /seed answered ${seeded.status}: ${seeded.text}`);
  }
  return { proc, url: proc.url, dir: temp.dir, cleanup: temp.cleanup };
}

/** Screenshots the page in light and dark: test-output/ui/<name>-light.png and -dark.png. */
export async function screenshots(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    // Let CodeMirror's theme hook and the grid repaint in the new scheme.
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}-${colorScheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** The text of the first error box the page shows, once it shows one. */
export async function errorText(page: Page): Promise<string> {
  const box = page.locator('p.error').first();
  await box.waitFor();
  return (await box.textContent()) ?? '';
}
