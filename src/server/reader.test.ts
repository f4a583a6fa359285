/**
 * Proves which requests a reader process answers itself (issue 25): GET of the collections,
 * a page, a document by `_id` and the documents by a field's value, query strings included;
 * and that everything else goes to the first process, a path the node's routes would not
 * match included, so its answer (a 404, a write's refusal) is the node's own. For
 * `POST /query`: which bodies a reader reads, and that it answers only a clean body's
 * SELECT read through an index (by text, by a handle it holds, or a router's shard part),
 * planned in its own read-only view, a new index included; writes, scans, joins,
 * aggregates over a scan, unknown handles, bad params and every unclean body are passed.
 * Which connections the first process deals to readers at all, by their first request line.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type Database, open } from '../engine/index.js';
import {
  answersQuery,
  bodyToRead,
  preparedText,
  QUERY_BODY_BYTES_MAX,
  queryAsk,
  readerMayServe,
  servedByReader,
} from './reader.js';

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

describe('readerMayServe', () => {
  it('deals the reads a reader serves and the /query bodies it reads to decide', () => {
    for (const [method, url] of [
      ['GET', '/collections/orders/0190d3a1b2c3'],
      ['GET', '/collections/orders/by/pnr/ABC123?x=1'],
      ['POST', '/query'],
      ['POST', '/query?stream=true'],
      ['POST', '/query/prepare'],
    ] as const) {
      expect(readerMayServe(method, url), `${method} ${url}`).toBe(true);
    }
  });

  it('keeps in the first process a connection a reader would only relay', () => {
    for (const [method, url] of [
      ['POST', '/collections/orders'],
      ['POST', '/collections/orders/bulk'],
      ['PUT', '/collections/orders/0190d3a1b2c3'],
      ['DELETE', '/collections/orders/0190d3a1b2c3'],
      ['GET', '/query'],
      ['POST', '/queryx'],
      ['GET', '/health'],
      ['GET', '/metrics'],
      ['GET', '/changes?since=0'],
      ['GET', '/wire'],
    ] as const) {
      expect(readerMayServe(method, url), `${method} ${url}`).toBe(false);
    }
  });
});

describe('bodyToRead', () => {
  const json = { 'content-type': 'application/json' };

  it('reads the body of a JSON POST /query and /query/prepare', () => {
    expect(bodyToRead('POST', '/query', json)).toBe('query');
    expect(bodyToRead('POST', '/query?stream=true', json)).toBe('query');
    const charset = { 'content-type': 'application/json; charset=utf-8', 'content-length': '40' };
    expect(bodyToRead('POST', '/query', charset)).toBe('query');
    expect(bodyToRead('POST', '/query/prepare', json)).toBe('prepare');
  });

  it('passes any other body as it comes', () => {
    expect(bodyToRead('GET', '/query', json)).toBe('pass');
    expect(bodyToRead('POST', '/queryx', json)).toBe('pass');
    expect(bodyToRead('POST', '/query/x', json)).toBe('pass');
    expect(bodyToRead('POST', '/collections/orders', json)).toBe('pass');
    expect(bodyToRead('POST', '/query', {})).toBe('pass');
    expect(bodyToRead('POST', '/query', { 'content-type': 'text/plain' })).toBe('pass');
    expect(bodyToRead('POST', '/query', { ...json, 'content-encoding': 'gzip' })).toBe('pass');
    const long = { ...json, 'content-length': String(QUERY_BODY_BYTES_MAX + 1) };
    expect(bodyToRead('POST', '/query', long)).toBe('pass');
    expect(bodyToRead(undefined, '/query', json)).toBe('pass');
  });
});

describe('queryAsk and preparedText', () => {
  const ask = (text: string) => queryAsk(Buffer.from(text));

  it('reads a clean /query body as the route takes it', () => {
    expect(ask('{"sql":"SELECT * FROM t","params":[1,-0]}')).toEqual({
      statement: 'SELECT * FROM t',
      params: [1, -0],
      options: {},
    });
    expect(ask('{"handle":"h1"}')).toEqual({
      statement: { handle: 'h1' },
      params: [],
      options: {},
    });
    expect(ask('{"sql":"S","shard":{"kind":"rows","top":3,"sortKeys":true}}')?.options).toEqual({
      shard: { kind: 'rows', top: 3, sortKeys: true },
    });
  });

  it('answers undefined for every body the route would refuse or read otherwise', () => {
    for (const text of [
      '',
      'not json',
      '[]',
      'null',
      '{}',
      '{"sql":""}',
      '{"sql":1}',
      '{"sql":"S","handle":"h"}',
      '{"handle":""}',
      '{"sql":"S","params":"x"}',
      '{"sql":"S","extra":1}',
      '{"sql":"S","shard":{"kind":"other"}}',
      '{"sql":"S","shard":{"kind":"rows","top":-1}}',
      '{"sql":"S","shard":{"kind":"rows","sortKeys":"yes"}}',
      '{"sql":"S","shard":{"kind":"rows","more":1}}',
      '{"sql":"S","__proto__":{"x":1}}',
      '{"sql":"S","params":[{"constructor":{"prototype":{}}}]}',
    ]) {
      expect(ask(text), text).toBeUndefined();
    }
  });

  it('reads the text of a /query/prepare body', () => {
    expect(preparedText(Buffer.from('{"sql":"SELECT 1"}'))).toBe('SELECT 1');
    expect(preparedText(Buffer.from('{"sql":""}'))).toBeUndefined();
    expect(preparedText(Buffer.from('{'))).toBeUndefined();
  });
});

describe('answersQuery', () => {
  let writer: Database;
  let reader: Database;
  let temp: { dir: string; cleanup(): void };

  beforeEach(async () => {
    temp = makeTempDir();
    writer = await open(temp.dir);
    await writer
      .collection('t')
      .insertMany(Array.from({ length: 20 }, (_, i) => ({ i, k: i % 4 })));
    await writer.collection('u').insertMany([{ k: 1 }]);
    await writer.query('CREATE INDEX t_k ON t (k)');
    await writer.query('CREATE INDEX t_i ON t (i)');
    reader = await open(temp.dir, { readOnly: true });
  });

  afterEach(async () => {
    await reader.close();
    await writer.close();
    temp.cleanup();
  });

  const answers = (body: unknown) => answersQuery(reader, Buffer.from(JSON.stringify(body)));

  it('answers a SELECT read through an index: equality, range, IN, a shard part', () => {
    expect(answers({ sql: 'SELECT * FROM t WHERE k = ?', params: [1] })).toBe(true);
    expect(answers({ sql: 'SELECT * FROM t WHERE k = 1' })).toBe(true);
    expect(answers({ sql: 'SELECT * FROM t WHERE i > ? ORDER BY i', params: [3] })).toBe(true);
    expect(answers({ sql: 'SELECT * FROM t WHERE k IN (1, 2)' })).toBe(true);
    expect(answers({ sql: 'SELECT COUNT(*) FROM t WHERE k = 1' })).toBe(true);
    const shard = { kind: 'rows', top: 2, sortKeys: true };
    expect(answers({ sql: 'SELECT * FROM t WHERE k = 1 ORDER BY i', shard })).toBe(true);
  });

  it('answers a whole collection read unfiltered and unsorted: the NDJSON stream of a table', () => {
    expect(answers({ sql: 'SELECT * FROM t' })).toBe(true);
    expect(answers({ sql: 'SELECT * FROM t LIMIT 5 OFFSET 2' })).toBe(true);
    expect(answers({ sql: 'SELECT i, k FROM t LIMIT ?', params: [3] })).toBe(true);
  });

  it('passes writes, DDL, filtered or sorted scans, aggregates over a scan, joins and failing statements', () => {
    for (const body of [
      { sql: 'INSERT INTO t VALUES {"k": 9}' },
      { sql: 'UPDATE t SET i = 0 WHERE k = 1' },
      { sql: 'DELETE FROM t WHERE k = 1' },
      { sql: 'CREATE INDEX u_k ON u (k)' },
      { sql: 'SELECT * FROM t WHERE i != 1' },
      { sql: 'SELECT * FROM t ORDER BY i' },
      { sql: 'SELECT DISTINCT k FROM t' },
      { sql: 'SELECT COUNT(*) FROM t' },
      { sql: 'SELECT k, COUNT(*) FROM t GROUP BY k' },
      { sql: 'SELECT * FROM t JOIN u ON t.k = u.k WHERE t.k = 1' },
      { sql: 'SELECT * FROM t WHERE k = ?', params: [[1]] },
      { sql: 'SELECT * FROM t WHERE k = ?' },
      { sql: 'SELECT * FROM t WHERE k = ?', params: [1, 2] },
      { sql: 'SELECT * FROM nowhere WHERE k = 1' },
      { sql: 'SELEC * FROM t' },
      { sql: 'SELECT * FROM t WHERE k = 1', shard: { kind: 'partial' } },
      { handle: 'unknown' },
    ]) {
      expect(answers(body), JSON.stringify(body)).toBe(false);
    }
  });

  it('answers a handle it holds, and plans with an index created after it opened', async () => {
    const sql = 'SELECT * FROM u WHERE k = ?';
    const { handle } = reader.prepare(sql);
    expect(answers({ handle, params: [1] })).toBe(false);
    await writer.query('CREATE INDEX u_k ON u (k)');
    expect(answers({ handle, params: [1] })).toBe(true);
    expect(answers({ sql, params: [1] })).toBe(true);
  });
});
