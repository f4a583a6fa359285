/**
 * One attempt of the damaged-files part, in a child process of its own (a signal kills only
 * it): opens a data file read-only through the built package and runs verify first, then
 * every kind of read, printing one JSON line per step as it ends, so the harness knows how far it got if the
 * process dies. Plain JavaScript over dist/: it starts in a fraction of tsx's time.
 *
 *   node damage-worker.mjs <data-dir>
 */

import { createHash } from 'node:crypto';
import { open } from '../../dist/index.js';

const dir = process.argv[2];

/** A digest of an answer, so the harness compares it with the sound file's. */
function digest(value) {
  return createHash('sha1').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

function report(step, fields) {
  process.stdout.write(`${JSON.stringify({ step, ...fields })}\n`);
}

function failure(error) {
  return {
    outcome: 'error',
    code: typeof error?.code === 'string' && error.name === 'DbError' ? error.code : undefined,
    message: String(error?.message ?? error).slice(0, 300),
  };
}

async function step(name, run) {
  report(name, { outcome: 'started' });
  try {
    const answer = await run();
    report(name, { outcome: 'ok', answer: digest(answer) });
    return true;
  } catch (error) {
    report(name, failure(error));
    return false;
  }
}

let db;
// Verify first, on the file opened as docdb verify opens it (damaged collections let in): it
// walks the pages itself and must survive any file.
const verifying = await step('verify-open', async () => {
  db = await open(dir, { readOnly: true, allowDamagedTrees: true });
  return 'opened';
});
if (verifying) {
  await step('verify', async () => {
    const result = await db.verify();
    report('verify-result', { outcome: 'ok', ok: result.ok, problems: result.problemCount });
    return result.ok;
  });
  await db.close().catch(() => undefined);
}
// Then the reads, on the file opened as every other command opens it: a damaged file is
// refused there with a clear error, or read without a signal.
const opened = await step('open', async () => {
  db = await open(dir, { readOnly: true });
  return 'opened';
});
if (opened) {
  await step('stats', () => {
    const stats = db.stats();
    return stats.collections.map((c) => [c.name, c.count, c.indexes.map((i) => i.entries)]);
  });
  await step('scan', async () => (await db.query('SELECT * FROM orders')).documents);
  await step(
    'index',
    async () =>
      (await db.query("SELECT pnr, status FROM orders WHERE status = 'confirmed'")).documents,
  );
  await step('aggregate', async () => {
    return (await db.query('SELECT status, COUNT(*), SUM(fare.total) FROM orders GROUP BY status'))
      .documents;
  });
  await step('changes', () => [...db.changesSince(0)].map((e) => [e.seq, e.op]));
  await db.close().catch(() => undefined);
}
