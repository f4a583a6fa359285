/**
 * Proves the admin UI's gate in a real browser against a real node: without an API key it
 * opens straight on the Overview; with one it asks for it, says so clearly when the key is
 * wrong, and lets the right one in (kept for the tab, sent as Bearer); when the node does
 * not answer it shows a screen saying so, and recovers on "Try again". Also /ui redirects
 * to /ui/, and every screen fits 390 pixels wide.
 */

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAll } from '../e2e/support.js';
import { errorText, launch, openPage, screenshots, startNode, type UiNode } from './support.js';

const KEY = 'ui-sign-in-key';
let browser: Browser;
const nodes: UiNode[] = [];

beforeAll(async () => {
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
  for (const node of nodes) node.cleanup();
});

describe('signing in', () => {
  it('opens on the Overview when the node has no key, from /ui too', async () => {
    const node = await startNode({ orders: 20 });
    nodes.push(node);
    const page = await openPage(browser);
    await page.goto(`${node.url}/ui`);
    expect(new URL(page.url()).pathname).toBe('/ui/');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('link', { name: 'orders' }).waitFor();
    await expect(page.getByRole('button', { name: 'Sign out' }).count()).resolves.toBe(0);
    expect(page.errors).toEqual([]);
  });

  it('asks for the key, refuses a wrong one clearly, and takes the right one', async () => {
    const node = await startNode({ orders: 20, apiKey: KEY });
    nodes.push(node);
    const page = await openPage(browser);
    await page.goto(`${node.url}/ui/`);
    await page.getByRole('heading', { name: /Sign in to/ }).waitFor();
    await screenshots(page, 'sign-in');
    await page.getByLabel('API key').fill('not-the-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await errorText(page)).toContain('wrong API key');
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // The key is the tab's: a reload stays signed in, and it is sent as Bearer.
    const sent = page.waitForRequest((r) => r.url().endsWith('/stats'));
    await page.reload();
    expect((await sent).headers().authorization).toBe(`Bearer ${KEY}`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: /Sign in to/ }).waitFor();
    expect(page.errors).toEqual([]);
  });

  it('says the node does not answer, and recovers when it does', async () => {
    const node = await startNode();
    nodes.push(node);
    const page = await openPage(browser);
    // The page itself comes from the node; its API calls are what fail, as when it stops.
    await page.route('**/health', (route) => route.abort('connectionrefused'));
    await page.goto(`${node.url}/ui/`);
    await page.getByRole('heading', { name: 'The node does not answer' }).waitFor();
    expect(await errorText(page)).toContain('did not answer');
    await screenshots(page, 'node-down');
    await page.unroute('**/health');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('reads at 390 pixels wide: no screen is wider than the window', async () => {
    const node = await startNode({ orders: 20 });
    nodes.push(node);
    const page = await openPage(browser, { width: 390, height: 844 });
    const screens: Array<[string, string]> = [
      ['', 'Overview'],
      ['collections/', 'Collections'],
      ['documents/?c=orders', 'Documents'],
      ['query/', 'Query'],
      ['indexes/?c=orders', 'Indexes'],
      ['transfer/?c=orders', 'Import / export'],
      ['replication/', 'Replication'],
    ];
    for (const [path, heading] of screens) {
      await page.goto(`${node.url}/ui/${path}`);
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      // A string, as the root's TypeScript has no DOM types: evaluated in the page.
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow, heading).toBeLessThanOrEqual(0);
    }
    await page.goto(`${node.url}/ui/`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await screenshots(page, 'overview-390');
  });
});
