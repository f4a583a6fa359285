/**
 * Proves --cors-origin in a real browser, as the admin UI built with NEXT_PUBLIC_DOCDB_URL
 * uses it: a page of the allowed origin calls another node with its API key (a preflighted
 * POST /query and a DELETE with X-Confirm) and reads the exposed X-DOCDB-Plan header; the
 * same call to a node without the setting is refused by the browser.
 */

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAll } from '../e2e/support.js';
import { launch, openPage, startNode, type UiNode } from './support.js';

const KEY = 'cors-ui-key';
let browser: Browser;
let page: Page;
const nodes: UiNode[] = [];

/** What the page gets for `init` sent to `url`, or the browser's refusal. */
function fetchFromPage(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
) {
  return page.evaluate(
    async ([target, options]) => {
      try {
        const response = await fetch(target, options);
        return {
          status: response.status,
          plan: response.headers.get('x-docdb-plan'),
          body: await response.text(),
        };
      } catch (error) {
        return { refused: String(error) };
      }
    },
    [url, init] as const,
  );
}

beforeAll(async () => {
  browser = await launch();
  const ui = await startNode();
  nodes.push(ui);
  const origin = new URL(ui.url).origin;
  nodes.push(await startNode({ orders: 5, apiKey: KEY, args: ['--cors-origin', origin] }));
  nodes.push(await startNode({ orders: 5, apiKey: KEY }));
  page = await openPage(browser);
  await page.goto(`${ui.url}/ui/`);
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
  for (const node of nodes) node.cleanup();
});

describe('--cors-origin', () => {
  it('lets the allowed origin query another node with its key and read the plan header', async () => {
    const allowed = nodes[1] as UiNode;
    const answer = await fetchFromPage(`${allowed.url}/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sql: "SELECT pnr FROM orders WHERE status = 'confirmed'" }),
    });
    expect(answer).toMatchObject({ status: 200, plan: expect.stringContaining('INDEX_SCAN') });
    const drop = await fetchFromPage(`${allowed.url}/collections/orders`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${KEY}`, 'x-confirm': 'true' },
    });
    expect(drop).toMatchObject({ status: 200, body: '{"dropped":"orders"}' });
    // Without the key the node still refuses, and the page can read why.
    const refused = await fetchFromPage(`${allowed.url}/stats`, { method: 'GET', headers: {} });
    expect(refused).toMatchObject({ status: 401 });
  });

  it('is refused by the browser on a node without the setting', async () => {
    const other = nodes[2] as UiNode;
    const answer = await fetchFromPage(`${other.url}/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sql: 'SELECT * FROM orders' }),
    });
    expect(answer).toMatchObject({ refused: expect.stringContaining('Failed to fetch') });
  });
});
