/**
 * The embedded side of the disk-full part, in a child process of its own (kill -9 kills only
 * it): opens a data dir through the built package and answers requests, one JSON line each on
 * stdin, with one JSON line each on stdout. Requests run as they come, not one after another,
 * so several writers' inserts share commits as an application's would. Plain JavaScript over
 * dist/: it starts in a fraction of tsx's time.
 *
 *   node disk-full-worker.mjs <data-dir> <change-log-bytes> [<max-file-bytes>]
 */

import * as readline from 'node:readline';
import { open } from '../../dist/index.js';

const [dir, logBytes, capBytes] = process.argv.slice(2);
const db = await open(dir, {
  changeLogRetainBytes: Number(logBytes),
  ...(capBytes === undefined ? {} : { maxFileBytes: Number(capBytes) }),
});
const filler = db.collection('filler');

function failure(error) {
  return {
    ok: false,
    code: typeof error?.code === 'string' && error.name === 'DbError' ? error.code : undefined,
    message: String(error?.message ?? error).slice(0, 400),
  };
}

async function idsWhere(where) {
  const answer = await db.query(`SELECT _id FROM filler${where}`);
  return answer.documents.map((doc) => doc._id);
}

const handlers = {
  /** Inserts `count` documents of about `bytes` bytes tagged `tag`, in one bulk insert. */
  async insert({ tag, count, bytes }) {
    const docs = Array.from({ length: count }, (_, i) => ({ tag, i, text: 'x'.repeat(bytes) }));
    const result = await filler.insertMany(docs);
    if (result.errors.length > 0) throw new Error(`bulk errors: ${JSON.stringify(result.errors)}`);
    return { ids: result.ids };
  },
  /** Every read the part asks for while the disk is full: a count, a get, a query. */
  async read({ sampleId }) {
    const counted = filler.count();
    const sample = sampleId === undefined ? undefined : await filler.get(sampleId);
    const queried = (await db.query('SELECT COUNT(*) AS n FROM filler')).documents[0]?.n;
    return { count: counted, queried, sampleFound: sample !== undefined };
  },
  async deleteTag({ tag }) {
    return { deleted: await filler.deleteMany(await idsWhere(` WHERE tag = '${tag}'`)) };
  },
  async ids() {
    return { ids: await idsWhere('') };
  },
};

process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
for await (const line of readline.createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  const handler = handlers[request.cmd];
  const answer = handler
    ? handler(request).then((fields) => ({ ok: true, ...fields }), failure)
    : Promise.resolve(failure(new Error(`unknown command ${request.cmd}`)));
  answer.then((fields) =>
    process.stdout.write(`${JSON.stringify({ id: request.id, ...fields })}\n`),
  );
}
await db.close();
