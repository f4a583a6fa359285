/**
 * Proves which requests a reader process answers itself (issue 25): GET of the collections,
 * a page, a document by `_id` and the documents by a field's value, query strings included;
 * and that everything else goes to the first process, a path the node's routes would not
 * match included, so its answer (a 404, a write's refusal) is the node's own.
 */

import { describe, expect, it } from 'vitest';
import { servedByReader } from './reader.js';

describe('servedByReader', () => {
  it('serves the document reads', () => {
    for (const url of [
      '/collections',
      '/collections?x=1',
      '/collections/orders',
      '/collections/orders?limit=10&after=abc',
      '/collections/orders/0190d3a1b2c3',
      '/collections/orders/by',
      '/collections/orders/by/pnr/ABC123',
      '/collections/orders/by/pnr/ABC123?x=1',
    ]) {
      expect(servedByReader('GET', url), url).toBe(true);
    }
  });

  it('passes every other request to the first process', () => {
    for (const [method, url] of [
      ['POST', '/collections/orders'],
      ['PUT', '/collections/orders/0190d3a1b2c3'],
      ['DELETE', '/collections/orders/by/pnr/ABC123'],
      ['HEAD', '/collections/orders/0190d3a1b2c3'],
      ['GET', '/collections/'],
      ['GET', '/collections/orders/'],
      ['GET', '/collections/orders/by/pnr'],
      ['GET', '/collections/orders/a/b'],
      ['GET', '/collections/orders/by/pnr/ABC123/x'],
      ['GET', '//collections/orders'],
      ['GET', '/collectionsx'],
      ['GET', '/health'],
      ['GET', '/stats'],
      ['GET', '/metrics'],
      ['GET', '/changes?since=0'],
      ['GET', '/indexes/orders'],
      ['GET', '/replication/status'],
      ['POST', '/query'],
    ] as const) {
      expect(servedByReader(method, url), `${method} ${url}`).toBe(false);
    }
    expect(servedByReader(undefined, '/collections')).toBe(false);
    expect(servedByReader('GET', undefined)).toBe(false);
  });
});
