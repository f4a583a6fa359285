/**
 * Proves that docdb_documents_written_total counts every document written through the node,
 * whatever the endpoint: document routes, SQL through /query (INSERT, UPDATE, DELETE) and
 * the sample data of /seed; and that the selection-cache gauges show what the node keeps.
 */

import { describe, expect, it } from 'vitest';
import { harnessPerTest } from '../../test/support/app-harness.js';

const start = harnessPerTest();

function written(text: string, operation: string): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`docdb_documents_written_total{operation="${operation}"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('docdb_documents_written_total', () => {
  it('counts writes made through /query and /seed like those of the document routes', async () => {
    const app = await start();
    await app.request({ method: 'POST', url: '/collections/c', json: { k: 1 } });
    const sql = async (text: string) =>
      app.request({ method: 'POST', url: '/query', json: { sql: text } });
    await sql('INSERT INTO c VALUES [{"k": 2}, {"k": 3}]');
    await sql('UPDATE c SET seen = true WHERE k > 1');
    await sql('DELETE FROM c WHERE k = 3');
    await app.request({ method: 'POST', url: '/seed', json: { orders: 4 } });
    const text = (await app.request({ url: '/metrics' })).text;
    expect(written(text, 'insert')).toBe(1 + 2 + 4);
    expect(written(text, 'replace')).toBe(2);
    expect(written(text, 'delete')).toBe(1);
  });
});

describe('docdb_selection_cache_*', () => {
  it('shows the selections a repeated report keeps, and the documents in them', async () => {
    const app = await start();
    await app.request({ method: 'POST', url: '/collections/c', json: { k: 1, s: 'a' } });
    await app.request({ method: 'POST', url: '/collections/c', json: { k: 2, s: 'b' } });
    const gauge = (text: string, name: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${name} `))
          ?.split(' ')[1],
      );
    let text = (await app.request({ url: '/metrics' })).text;
    expect(gauge(text, 'docdb_selection_cache_selections')).toBe(0);
    for (let i = 0; i < 2; i++) {
      await app.request({
        method: 'POST',
        url: '/query',
        json: { sql: 'SELECT s, COUNT(*) AS n FROM c GROUP BY s' },
      });
    }
    text = (await app.request({ url: '/metrics' })).text;
    expect(gauge(text, 'docdb_selection_cache_selections')).toBe(1);
    expect(gauge(text, 'docdb_selection_cache_documents')).toBe(2);
  });
});
