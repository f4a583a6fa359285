/**
 * Proves that internal text never reaches a client: a storage failure (ERR_STORAGE_FAILED,
 * whose message holds the engine's own words) and an ERR_INTERNAL DbError are answered with
 * the catalogue's fixed message and the request id, while the node's log keeps the cause
 * under that request id. The database is real; one route's call is made to reject, as a
 * database whose commit fails would.
 */

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { harnessPerTest } from '../../test/support/app-harness.js';
import { DbError, ERROR_CATALOGUE } from '../errors/index.js';

const start = harnessPerTest();
const ENGINE_TEXT = 'MDB_MAP_FULL: Environment mapsize limit reached at /srv/docdb/data.docdb';

/** A logger stream that keeps every line. */
function logLines(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, stream };
}

describe('messages kept from clients', () => {
  it('answers a storage failure with a fixed message and the request id, and logs the cause', async () => {
    const log = logLines();
    const app = await start({ logger: { level: 'info', stream: log.stream } });
    app.db.flush = () =>
      Promise.reject(
        new DbError('ERR_STORAGE_FAILED', `the write was not committed: ${ENGINE_TEXT}`),
      );
    const answer = await app.inject({ method: 'POST', url: '/admin/flush' });
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({
      error: ERROR_CATALOGUE.ERR_STORAGE_FAILED.publicMessage,
      code: 'ERR_STORAGE_FAILED',
      requestId: answer.headers['x-request-id'],
    });
    expect(answer.text).not.toContain('MDB_');
    expect(answer.text).not.toContain('not committed');
    const logged = log.lines.map((line) => JSON.parse(line)).find((l) => l.level === 50);
    expect(logged?.reqId).toBe(answer.headers['x-request-id']);
    expect(JSON.stringify(logged)).toContain(ENGINE_TEXT);
  });

  it('does the same for a DbError of code ERR_INTERNAL and any status mapping', async () => {
    const app = await start();
    app.db.query = () => Promise.reject(new DbError('ERR_INTERNAL', `bug: ${ENGINE_TEXT}`));
    const answer = await app.inject({
      method: 'POST',
      url: '/query',
      json: { sql: 'SELECT * FROM c' },
    });
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({
      error: 'internal error',
      code: 'ERR_INTERNAL',
      requestId: answer.headers['x-request-id'],
    });
  });

  it('leaves the messages of other codes as they are', async () => {
    const app = await start();
    const answer = await app.request({ url: '/indexes/nobody' });
    expect(answer.status).toBe(404);
    expect(answer.body.error).toContain("unknown collection 'nobody'");
    expect(answer.body.requestId).toBeUndefined();
  });
});
