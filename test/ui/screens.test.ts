/**
 * Proves the admin UI's screens in a real browser against a real node with seeded orders:
 * the Overview; browsing and paging the documents grid (blocks past the first come through
 * the `after` cursor); editing with an invalid then a valid JSON (the node's refusal shown
 * inline, the list kept where it was); insert and delete; find by key; a query with its plan,
 * count and time, the hint for an unindexed WHERE, and its export; creating and dropping an
 * index (through DELETE /indexes/…, not SQL); importing and exporting a file; dropping a collection after typing its name
 * (X-Confirm). Each screen is screenshotted in both colour schemes.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, stopAll } from '../e2e/support.js';
import { errorText, launch, openPage, screenshots, startNode, type UiNode } from './support.js';

const ORDERS = 300;
let browser: Browser;
let node: UiNode;
let page: Page & { errors: string[] };

beforeAll(async () => {
  [browser, node] = await Promise.all([launch(), startNode({ orders: ORDERS })]);
  page = await openPage(browser);
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
  node?.cleanup();
});

async function go(screen: string): Promise<void> {
  await page.goto(`${node.url}/ui/${screen}`);
}

/** Replaces the text of the CodeMirror editor labelled `label`. */
async function typeInEditor(label: string, text: string): Promise<void> {
  const editor = page.getByLabel(label);
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

async function get(route: string) {
  return request(`${node.url}${route}`);
}

describe('the admin UI screens', () => {
  it('Overview: node facts, collection counts, the live chart', async () => {
    await go('');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('cell', { name: String(ORDERS) }).waitFor();
    // Two readings make the first rate; three, a line worth a screenshot.
    await page.getByText(/Requests\/s: \d/).waitFor();
    await page.waitForFunction(
      "(document.querySelector('.chart polyline')?.getAttribute('points') ?? '').split(' ').length >= 3",
      undefined,
      { timeout: 10_000 },
    );
    await screenshots(page, 'overview');
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
  });

  it('Documents: browses and pages through the server cursor', async () => {
    const lists: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/collections/orders?')) lists.push(r.url());
    });
    await go('documents/?c=orders');
    await page.locator('.ag-row[row-index="0"]').waitFor();
    await page.getByRole('columnheader', { name: 'pnr' }).waitFor();
    await screenshots(page, 'documents');
    // Scrolling to the end loads the blocks after the first, each after the last _id.
    for (let i = 0; i < 10; i++) {
      await page
        .locator('.ag-body-vertical-scroll-viewport')
        .evaluate((el) => el.scrollTo(0, el.scrollHeight));
      if (await page.locator(`.ag-row[row-index="${ORDERS - 1}"]`).count()) break;
      await page.waitForTimeout(200);
    }
    await page.locator(`.ag-row[row-index="${ORDERS - 1}"]`).waitFor();
    expect(lists.some((url) => url.includes('after='))).toBe(true);
    // The JSON view pages too.
    await page.getByLabel('JSON', { exact: true }).check();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2').waitFor();
    await page.getByLabel('Table', { exact: true }).check();
  });

  it('Documents: a row opens from the keyboard (Enter on a cell)', async () => {
    await go('documents/?c=orders');
    const cell = page.locator('.ag-row[row-index="2"] .ag-cell').first();
    await cell.waitFor();
    await cell.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'document editor' }).waitFor();
    await page.getByRole('button', { name: 'Close' }).click();
  });

  it('Documents: edit with invalid then valid JSON, the refusal inline, position kept', async () => {
    await go('documents/?c=orders');
    const row = page.locator('.ag-row[row-index="5"]');
    await row.waitFor();
    await row.click();
    await page.getByRole('region', { name: 'document editor' }).waitFor();
    const text = await page.getByLabel('document JSON').textContent();
    const id = /"_id": "([0-9a-f-]+)"/.exec(text ?? '')?.[1] as string;
    expect(id).toBeTruthy();

    await typeInEditor('document JSON', '{ "pnr": "BROKEN", ');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await errorText(page)).toContain('Not valid JSON');

    // Valid JSON the node refuses: a body _id other than the document's.
    await typeInEditor(
      'document JSON',
      '{ "_id": "00000000-0000-0000-0000-000000000000", "pnr": "X" }',
    );
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await errorText(page)).toMatch(/_id/);

    await typeInEditor(
      'document JSON',
      `{ "_id": "${id}", "pnr": "EDITED1", "note": "from the UI" }`,
    );
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Saved ${id}` })
      .waitFor();
    const stored = await get(`/collections/orders/${id}`);
    expect(stored.json).toEqual({ _id: id, pnr: 'EDITED1', note: 'from the UI' });
    // The grid shows the edit in place, in the same row.
    await page.locator('.ag-row[row-index="5"]').getByText('EDITED1').waitFor();
    await screenshots(page, 'documents-edit');
  });

  it('Documents: insert, find by key, delete', async () => {
    await go('documents/?c=orders');
    await page.locator('.ag-row[row-index="0"]').waitFor();
    await page.getByRole('button', { name: 'New document' }).click();
    await typeInEditor('document JSON', '{ "pnr": "NEWUI1", "fare": { "total": 12.5 } }');
    await page.getByRole('button', { name: 'Insert' }).click();
    const inserted = page.getByRole('status').filter({ hasText: 'Inserted' });
    await inserted.waitFor();
    const id = /Inserted ([0-9a-f-]+)/.exec((await inserted.textContent()) ?? '')?.[1] as string;
    expect((await get(`/collections/orders/${id}`)).json).toMatchObject({ pnr: 'NEWUI1' });

    await page.getByLabel('Key path').fill('pnr');
    await page.getByLabel('Value').fill('NEWUI1');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByText('Found 1 by key').waitFor();
    await page.getByRole('region', { name: 'found documents' }).getByText('NEWUI1').click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete document' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Deleted ${id}` })
      .waitFor();
    expect((await get(`/collections/orders/${id}`)).status).toBe(404);
  });

  it('Query: runs with Ctrl+Enter, shows plan, count and time, the hint, and exports', async () => {
    await go('query/');
    await typeInEditor('SQL statement', 'SELECT pnr, status FROM orders WHERE status = ? LIMIT 5');
    await page.getByLabel(/Parameters for/).fill('["confirmed"]');
    await page.getByLabel('SQL statement').press('ControlOrMeta+Enter');
    const summary = page.getByRole('status', { name: 'run summary' });
    await summary.waitFor();
    expect(await summary.textContent()).toMatch(/count \d+.*ms on the node/);
    const plan = page.getByRole('region', { name: 'plan' });
    await plan.getByText(/scan/).waitFor();
    await page.getByRole('region', { name: 'result rows' }).locator('.ag-row').first().waitFor();
    await screenshots(page, 'query');

    await typeInEditor('SQL statement', 'SELECT * FROM orders WHERE note = ?');
    await page.getByLabel(/Parameters for/).fill('["from the UI"]');
    await page.getByRole('button', { name: 'Run' }).click();
    await plan.getByText('collection scan (every document)').waitFor();
    await page.getByRole('note').getByText('note').waitFor();
    await screenshots(page, 'query-plan-hint');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'NDJSON' }).click();
    const file = path.join(node.dir, 'result.ndjson');
    await (await download).saveAs(file);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).pnr)).toEqual(['EDITED1']);
    // The statement is in the session's history.
    await page.getByRole('list', { name: 'history' }).getByText('WHERE note = ?').waitFor();
  });

  it('Query: a SQL error shows as the node said it', async () => {
    await go('query/');
    await typeInEditor('SQL statement', 'SELEC * FROM orders');
    await page.getByRole('button', { name: 'Run' }).click();
    expect(await errorText(page)).toMatch(/SELEC|syntax|expected/i);
  });

  it('Indexes: create, see its kind and state, rebuild, drop', async () => {
    await go('indexes/?c=orders');
    await page.getByRole('table', { name: 'indexes' }).waitFor();
    await page.getByLabel('Paths').fill('note');
    await page.getByLabel('Name').fill('by_note');
    await page.getByRole('button', { name: 'Create index' }).click();
    await page.getByRole('status').filter({ hasText: 'Created index by_note' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'by_note' });
    await row.getByText('single').waitFor();
    await row.getByText('ready').waitFor();
    await screenshots(page, 'indexes');
    await page.getByRole('button', { name: 'Rebuild by_note' }).click();
    await page.getByRole('status').filter({ hasText: 'Rebuilt index by_note' }).waitFor();
    const indexes = (await get('/indexes/orders')).json as Array<{ name: string }>;
    expect(indexes.map((i) => i.name)).toContain('by_note');

    // The drop goes through DELETE /indexes/{collection}/{name}, not SQL text.
    const sent: string[] = [];
    page.on('request', (r) => sent.push(`${r.method()} ${new URL(r.url()).pathname}`));
    await page.getByRole('button', { name: 'Drop by_note' }).click();
    await page.getByRole('button', { name: 'Drop index' }).click();
    await page.getByRole('status').filter({ hasText: 'Dropped index by_note' }).waitFor();
    expect(sent).toContain('DELETE /indexes/orders/by_note');
    expect(sent).not.toContain('POST /query');
    const after = (await get('/indexes/orders')).json as Array<{ name: string }>;
    expect(after.map((i) => i.name)).not.toContain('by_note');
  });

  it('Import / export: exports a collection and imports the file, atomic and not', async () => {
    await go('transfer/?c=orders');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export orders' }).click();
    const exported = path.join(node.dir, 'orders.ndjson');
    await (await download).saveAs(exported);
    await page
      .getByRole('status')
      .filter({ hasText: `Exported ${ORDERS} documents` })
      .waitFor();
    expect(fs.readFileSync(exported, 'utf8').trim().split('\n')).toHaveLength(ORDERS);
    await screenshots(page, 'transfer');

    // Back in under another name: everything, with its _ids.
    await page.locator('input[type=file]').setInputFiles(exported);
    await page.getByLabel('Into collection').fill('orders_copy');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Imported ${ORDERS} documents into orders_copy` })
      .waitFor();
    const copy = (await get('/stats')).json as {
      collections: Array<{ name: string; count: number }>;
    };
    expect(copy.collections.find((c) => c.name === 'orders_copy')?.count).toBe(ORDERS);

    // A file whose second document collides (the same _id again): atomic stores nothing...
    const bad = path.join(node.dir, 'bad.ndjson');
    const first = fs.readFileSync(exported, 'utf8').split('\n')[0] as string;
    fs.writeFileSync(bad, `{"pnr":"FRESH1"}\n${first}\n`);
    await page.locator('input[type=file]').setInputFiles(bad);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    expect(await errorText(page)).toContain('nothing was imported');
    await page
      .getByRole('region', { name: 'line errors' })
      .getByRole('cell', { name: '2', exact: true })
      .waitFor();
    const fresh = await get('/collections/orders_copy/by/pnr/FRESH1');
    expect((fresh.json as { count: number }).count).toBe(0);
    // ...and without atomic, the good line goes in and the bad one is named.
    await page.getByLabel('Atomic (all or nothing)').uncheck();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Imported 1 of 2 documents' }).waitFor();
    await page
      .getByRole('region', { name: 'line errors' })
      .getByRole('cell', { name: '2', exact: true })
      .waitFor();
    // A line that is not JSON stops the import before anything is sent.
    const notJson = path.join(node.dir, 'not-json.ndjson');
    fs.writeFileSync(notJson, '{"pnr":"OK"}\nnot json\n');
    await page.locator('input[type=file]').setInputFiles(notJson);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    expect(await errorText(page)).toContain('1 lines are not documents');
  });

  it('Collections: lists, creates, and drops after the name is typed (X-Confirm)', async () => {
    await go('collections/');
    await page.getByRole('link', { name: 'orders_copy' }).waitFor();
    await page.getByLabel('Name').fill('scratch');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('link', { name: 'scratch' }).waitFor();
    await screenshots(page, 'collections');

    const drop = page.waitForRequest((r) => r.method() === 'DELETE');
    await page.getByRole('button', { name: 'Drop orders_copy' }).click();
    const confirm = page.getByRole('button', { name: 'Drop collection' });
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByLabel('confirmation').fill('orders_cop');
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByLabel('confirmation').fill('orders_copy');
    await confirm.click();
    expect((await drop).headers()['x-confirm']).toBe('true');
    await page.getByRole('status').filter({ hasText: 'Dropped orders_copy' }).waitFor();
    expect((await get('/collections')).json).not.toContain('orders_copy');
    expect(page.errors).toEqual([]);
  });
});
