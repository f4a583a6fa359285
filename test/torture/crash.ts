/**
 * The torture suite's crash part: kill -9 in the middle of concurrent writes, then check
 * that every acknowledged write is there.
 * - embedded: the crash harness of test/crash (a writer process on the embedded API, killed at
 *   a random moment, the file reopened and every acknowledged write, index and log entry
 *   checked after every cycle).
 * - served: a `docdb serve` with four HTTP writers inserting, replacing and deleting their
 *   own documents, killed with SIGKILL at a random moment and started again on the same data
 *   dir. Every write the node acknowledged must be there as acknowledged; a write cut by the
 *   kill may have landed or not, nothing else. Every 100 cycles (and after the last)
 *   `docdb verify` checks every index against the documents and the change log.
 */

import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { connect, type DocdbClient, isDbError } from '../../src/client/index.js';
import { Rng } from '../../src/util/index.js';
import { CrashCheckError, runCrashCycles } from '../crash/crash-harness.js';
import { BIN, cleanEnv, freePort, startServe } from '../e2e/support.js';
import { Check, type CheckResult, type PartContext, type TorturePart } from './part.js';

const CYCLES = { quick: { embedded: 10, served: 8 }, full: { embedded: 1000, served: 1000 } };
const WRITERS = 4;
/** A cycle's writers run this long (ms, drawn per cycle) before the kill. */
const KILL_AFTER_MS = { min: 100, max: 600 };
/** `docdb verify` runs after every this many served cycles. */
const VERIFY_EVERY = 100;

/** What the model holds for one key: its `_id` and value, or gone. */
interface KeyState {
  id: string;
  v: number;
  present: boolean;
}

/** A write sent and not answered when the node died: either outcome is right. */
interface Pending {
  key: string;
  before: KeyState | undefined;
  after: KeyState | undefined;
}

class ServedModel {
  readonly keys = new Map<string, KeyState>();
  readonly pending = new Map<number, Pending>();
  acknowledged = 0;
}

/** One writer until the node dies under it: its own keys, so its view is exact. */
async function writer(
  client: DocdbClient,
  model: ServedModel,
  w: number,
  cycle: number,
  rng: Rng,
): Promise<void> {
  for (let step = 0; ; step++) {
    const mine = [...model.keys.entries()].filter(
      ([key, state]) => state.present && key.startsWith(`w${w}-`),
    );
    const choice = mine.length < 5 ? 0 : rng.int(4);
    const key = choice === 0 ? `w${w}-c${cycle}-${step}` : (rng.pick(mine)[0] as string);
    const before = model.keys.get(key);
    const pending: Pending = { key, before, after: undefined };
    model.pending.set(w, pending);
    try {
      if (choice === 0) {
        // The client chooses the _id, so a cut insert can be recognised after the restart.
        const id = crypto.randomUUID();
        pending.after = { id, v: 0, present: true };
        await client.insert('crash', { _id: id, key, v: 0 });
        model.keys.set(key, pending.after);
      } else if (choice === 3) {
        const state = before as KeyState;
        pending.after = { ...state, present: false };
        await client.delete('crash', state.id);
        model.keys.set(key, pending.after);
      } else {
        const state = before as KeyState;
        pending.after = { ...state, v: state.v + 1 };
        await client.replace('crash', state.id, { key, v: state.v + 1 });
        model.keys.set(key, pending.after);
      }
      model.acknowledged++;
      model.pending.delete(w);
    } catch (error) {
      // The node died: this write's outcome is unknown and stays pending.
      if (isDbError(error) && error.code.startsWith('ERR_CLIENT')) return;
      model.pending.delete(w);
      throw error;
    }
  }
}

/** Reads every document of the collection: key → state. */
async function stored(client: DocdbClient): Promise<Map<string, KeyState>> {
  const found = new Map<string, KeyState>();
  let after: string | undefined;
  for (;;) {
    const page = await client
      .list('crash', { limit: 10_000, ...(after && { after }) })
      .catch((error: unknown) => {
        if (isDbError(error, 'ERR_COLLECTION_NOT_FOUND')) return { documents: [] };
        throw error;
      });
    for (const doc of page.documents) {
      found.set(String(doc.key), { id: String(doc._id), v: Number(doc.v), present: true });
    }
    if (page.documents.length < 10_000) return found;
    after = page.documents.at(-1)?._id as string;
  }
}

function same(a: KeyState | undefined, b: KeyState | undefined): boolean {
  const present = (s: KeyState | undefined) => s?.present === true;
  if (!present(a) || !present(b)) return present(a) === present(b);
  return a?.id === b?.id && a?.v === b?.v;
}

/** Compares the node's documents with the model; settles pending writes by what landed. */
function compare(model: ServedModel, found: Map<string, KeyState>): string[] {
  const problems: string[] = [];
  const pendingKeys = new Map([...model.pending.values()].map((p) => [p.key, p]));
  for (const [key, expected] of model.keys) {
    if (pendingKeys.has(key)) continue;
    if (!same(found.get(key), expected)) {
      problems.push(
        `${key}: acknowledged ${JSON.stringify(expected)}, found ${JSON.stringify(found.get(key) ?? 'nothing')}`,
      );
    }
  }
  for (const [key, pending] of pendingKeys) {
    const now = found.get(key);
    if (same(now, pending.after)) {
      if (pending.after) model.keys.set(key, pending.after);
    } else if (!same(now, pending.before)) {
      problems.push(
        `${key}: a cut write left ${JSON.stringify(now ?? 'nothing')}, neither ${JSON.stringify(pending.before ?? 'nothing')} nor ${JSON.stringify(pending.after)}`,
      );
    }
  }
  for (const key of found.keys()) {
    if (!model.keys.has(key) && !pendingKeys.has(key)) problems.push(`${key}: never written`);
  }
  model.pending.clear();
  return problems;
}

async function served(context: PartContext): Promise<CheckResult> {
  const check = new Check('served, kill -9 under 4 writers');
  const cycles = context.quick ? CYCLES.quick.served : CYCLES.full.served;
  const rng = new Rng(context.seed);
  const dataDir = path.join(context.dir, 'served');
  const model = new ServedModel();
  for (let cycle = 1; cycle <= cycles; cycle++) {
    const port = await freePort();
    const node = await startServe(['--port', String(port), '--data-dir', dataDir], {
      cwd: context.dir,
      port,
    });
    const client = connect(`http://127.0.0.1:${port}`, { retries: 0 });
    try {
      const before = compare(model, await stored(client));
      if (before.length > 0) {
        check.count(
          'lost',
          `cycle ${cycle} (seed ${context.seed}): ${before.slice(0, 3).join('; ')}`,
        );
        return check.done();
      }
      const writers = Array.from({ length: WRITERS }, (_, w) =>
        writer(client, model, w, cycle, new Rng(rng.int(2 ** 31))),
      );
      await new Promise((resolve) =>
        setTimeout(resolve, KILL_AFTER_MS.min + rng.int(KILL_AFTER_MS.max - KILL_AFTER_MS.min)),
      );
      node.child.kill('SIGKILL');
      await node.waitForExit();
      await Promise.all(writers);
      check.count('acknowledged writes all there');
    } catch (error) {
      check.count('error', `cycle ${cycle} (seed ${context.seed}): ${(error as Error).message}`);
      node.child.kill('SIGKILL');
      return check.done();
    } finally {
      await client.close();
    }
    if (cycle % VERIFY_EVERY === 0 || cycle === cycles) {
      const verify = spawnSync(BIN, ['verify', dataDir, '--json'], {
        env: cleanEnv(),
        encoding: 'utf8',
      });
      if (verify.status === 0) check.count('verify: indexes and log agree');
      else
        check.count(
          'verify failed',
          `after cycle ${cycle}: ${verify.stdout.slice(0, 500)} ${verify.stderr.slice(0, 500)}`,
        );
    }
    if (cycle % 50 === 0)
      context.log(
        `crash served: ${cycle}/${cycles} cycles, ${model.acknowledged} writes acknowledged`,
      );
  }
  // The last kill's writes are checked on one more start.
  const port = await freePort();
  const node = await startServe(['--port', String(port), '--data-dir', dataDir], {
    cwd: context.dir,
    port,
  });
  const client = connect(`http://127.0.0.1:${port}`);
  const problems = compare(model, await stored(client));
  await client.close();
  node.child.kill('SIGTERM');
  await node.waitForExit();
  check.count(
    problems.length === 0 ? 'acknowledged writes all there' : 'lost',
    problems.length === 0 ? undefined : problems.slice(0, 3).join('; '),
  );
  context.log(
    `crash served: ${model.acknowledged} writes acknowledged over ${cycles} kills, none lost`,
  );
  return check.done();
}

async function embedded(context: PartContext): Promise<CheckResult> {
  const check = new Check('embedded, kill -9 of a writer process');
  const cycles = context.quick ? CYCLES.quick.embedded : CYCLES.full.embedded;
  try {
    const summary = await runCrashCycles({
      cycles,
      seed: context.seed,
      dir: path.join(context.dir, 'embedded'),
      log: () => check.count('acknowledged writes, indexes and log all there'),
    });
    context.log(
      `crash embedded: ${summary.cycles} kills, ${summary.ackedWrites} writes acknowledged, ${summary.documentsVerified} documents verified`,
    );
  } catch (error) {
    const where =
      error instanceof CrashCheckError ? ` (cycle ${error.cycle}, dir ${error.dir})` : '';
    check.count('lost', `${(error as Error).message}${where}`);
  }
  return check.done();
}

export const crash: TorturePart = {
  name: 'crash',
  description:
    'kill -9 under concurrent writers, embedded and served: every acknowledged write survives, indexes agree',
  run: async (context) => [await embedded(context), await served(context)],
};
