/**
 * `docdb rebalance`'s work: from the placement of an old cluster.json to a new one (shards
 * added or removed). The plan reads every document of every hash collection on the old
 * shards and counts, per collection, what moves from which shard to which; replicated
 * collections are copied whole to shards that are new. Execution moves documents in batches:
 * a bulk insert keeping `_id` (then the source's indexes, created on the target once the
 * collection exists there), each copy read back and compared, and only then the delete on
 * the source. A document already copied (a run killed
 * after its copy) is found equal and only deleted, so a re-run finishes the job without
 * duplicates or loss. Before each delete the source is read again and a write that reached
 * it meanwhile is carried to the copy; the delete is conditional on the version carried
 * (If-Match), so no write can slip in between. Passes repeat until one finds nothing to move,
 * which carries over the documents inserted on an old owner while the move ran. Talks to
 * shards only through client/.
 */

import type { DocdbClient } from '../client/index.js';
import { type DbError, dbError } from '../errors/index.js';
import type { Document } from '../types/index.js';
import { parsePath, valueAt } from '../util/index.js';
import {
  type ClusterConfig,
  type ClusterShard,
  type CollectionPlacement,
  describeShard,
  newClusterConfig,
  placementOf,
  shardMembers,
} from './config.js';
import { shardFor } from './hash.js';
import { RebalanceJournal } from './rebalance-journal.js';
import { ShardSet } from './shard-set.js';

/** Documents read and moved per request. */
export const REBALANCE_BATCH_DOCS = 500;
/** Passes over the shards before rebalance stops and reports what still waits. */
export const REBALANCE_PASSES_MAX = 5;

/** One flow of documents of one collection. */
export interface Move {
  from: string;
  to: string;
  documents: number;
}

export interface CollectionPlan {
  name: string;
  strategy: CollectionPlacement['strategy'];
  moves: Move[];
  total: number;
}

export interface RebalancePlan {
  collections: CollectionPlan[];
  total: number;
}

/** What an execution did. */
export interface RebalanceResult {
  plan: RebalancePlan;
  moved: number;
  /** Documents found already copied by an earlier run: deleted from the source only. */
  resumed: number;
  passes: number;
  /**
   * Documents still on a shard that no longer owns them when the last pass ended (writes kept
   * landing there); a run after the routers switched to the new topology carries them.
   */
  remaining: number;
  /**
   * Copies removed because their document was deleted on its old shard while an earlier run
   * was stopped (its journal tells those deletes from its own).
   */
  undone: number;
  /**
   * Documents whose delete from the old shard an earlier run sent and never saw answered,
   * and that are gone from there: the copy is kept (it may be a document an application
   * deleted meanwhile). Empty unless a run was killed in the middle of a delete.
   */
  uncertain: Array<{ collection: string; id: string; shard: string }>;
}

/** A batch's place in the journal, handed down to its deletes. */
interface Journaled {
  journal: RebalanceJournal;
  batch: number;
}

/** Called after each batch: documents done so far of the pass's plan. */
export type Progress = (done: number, total: number) => void;

interface Shards {
  /** Each shard's leader of the moment (ShardSet.leaderClient), by name. */
  clients: Map<string, DocdbClient>;
  close(): Promise<void>;
}

function openShards(shards: readonly ClusterShard[]): Shards {
  const unique = [...new Map(shards.map((s) => [s.name, s])).values()];
  const set = new ShardSet({ ...newClusterConfig(), shards: unique });
  return {
    clients: new Map(unique.map((s) => [s.name, set.leaderClient(s)])),
    close: () => set.close(),
  };
}

/**
 * The shards of both configs by name, as the new config has them; a name in both must keep
 * a node (a shard may gain or lose replica-set members, not move whole).
 */
function allShards(from: ClusterConfig, to: ClusterConfig): ClusterShard[] {
  const byName = new Map(from.shards.map((s) => [s.name, s]));
  for (const s of to.shards) {
    const old = byName.get(s.name);
    if (old && !shardMembers(s).some((url) => shardMembers(old).includes(url))) {
      throw dbError('ERR_BAD_ARGUMENT', 'shardMoved', {
        before: describeShard(old),
        after: describeShard(s),
      });
    }
    byName.set(s.name, s);
  }
  return [...byName.values()];
}

/** Collections of the new config; each must keep the placement it had. */
function collectionsToMove(from: ClusterConfig, to: ClusterConfig) {
  const out: Array<{ name: string; placement: CollectionPlacement }> = [];
  for (const [name, placement] of Object.entries(to.collections)) {
    const old = placementOf(from, name);
    if (old && JSON.stringify(old) !== JSON.stringify(placement)) {
      throw dbError('ERR_BAD_ARGUMENT', 'placementChanged', {
        name,
        old: JSON.stringify(old),
        placement: JSON.stringify(placement),
      });
    }
    out.push({ name, placement });
  }
  return out;
}

/** Every document of a collection on one shard, page by page (none when it has none). */
async function* documentsOf(client: DocdbClient, collection: string): AsyncGenerator<Document[]> {
  let after: string | undefined;
  for (;;) {
    let page: Document[];
    try {
      const answer = await client.list(collection, {
        limit: REBALANCE_BATCH_DOCS,
        ...(after !== undefined && { after }),
      });
      page = answer.documents;
    } catch (error) {
      if ((error as DbError).code === 'ERR_COLLECTION_NOT_FOUND') return;
      throw error;
    }
    if (page.length === 0) return;
    yield page;
    after = page.at(-1)?._id as string;
    if (page.length < REBALANCE_BATCH_DOCS) return;
  }
}

/** A document's owner under `shards`; a document without the shard key stays put. */
function ownerOf(doc: Document, path: ReturnType<typeof parsePath>, shards: ClusterShard[]) {
  const value = valueAt(doc, path);
  if (value === undefined) return undefined;
  return shardFor(value, shards).name;
}

function addMove(moves: Map<string, Move>, from: string, to: string, n: number): void {
  const key = `${from}\u0000${to}`;
  const move = moves.get(key) ?? { from, to, documents: 0 };
  move.documents += n;
  moves.set(key, move);
}

/** Counts what would move; moves nothing. */
export async function planRebalance(
  from: ClusterConfig,
  to: ClusterConfig,
): Promise<RebalancePlan> {
  const shards = openShards(allShards(from, to));
  try {
    return await plan(from, to, shards);
  } finally {
    await shards.close();
  }
}

async function plan(
  from: ClusterConfig,
  to: ClusterConfig,
  shards: Shards,
): Promise<RebalancePlan> {
  const collections: CollectionPlan[] = [];
  const oldNames = new Set(from.shards.map((s) => s.name));
  for (const { name, placement } of collectionsToMove(from, to)) {
    const moves = new Map<string, Move>();
    if (placement.strategy === 'hash') {
      const path = parsePath(placement.path);
      for (const s of allShards(from, to)) {
        for await (const page of documentsOf(shards.clients.get(s.name) as DocdbClient, name)) {
          for (const doc of page) {
            const owner = ownerOf(doc, path, to.shards);
            if (owner !== undefined && owner !== s.name) addMove(moves, s.name, owner, 1);
          }
        }
      }
    } else {
      const source = from.shards.find((s) => to.shards.some((t) => t.name === s.name));
      if (source) {
        const count = await countOf(shards.clients.get(source.name) as DocdbClient, name);
        for (const t of to.shards) {
          if (oldNames.has(t.name)) continue;
          // What a new shard already holds (an earlier run copied it) is not counted again.
          const held = await countOf(shards.clients.get(t.name) as DocdbClient, name);
          if (count > held) addMove(moves, source.name, t.name, count - held);
        }
      }
    }
    const list = [...moves.values()];
    collections.push({
      name,
      strategy: placement.strategy,
      moves: list,
      total: list.reduce((n, m) => n + m.documents, 0),
    });
  }
  return { collections, total: collections.reduce((n, c) => n + c.total, 0) };
}

async function countOf(client: DocdbClient, collection: string): Promise<number> {
  const stats = await client.stats();
  return stats.collections.find((c) => c.name === collection)?.count ?? 0;
}

/** Creates on `target` every index `source` has on the collection and `target` lacks. */
async function copyIndexes(source: DocdbClient, target: DocdbClient, collection: string) {
  let indexes: Awaited<ReturnType<DocdbClient['indexes']>>;
  try {
    indexes = await source.indexes(collection);
  } catch (error) {
    if ((error as DbError).code === 'ERR_COLLECTION_NOT_FOUND') return;
    throw error;
  }
  let present: string[] = [];
  try {
    present = (await target.indexes(collection)).map((i) => i.name.toLowerCase());
  } catch (error) {
    if ((error as DbError).code !== 'ERR_COLLECTION_NOT_FOUND') throw error;
  }
  for (const index of indexes) {
    if (present.includes(index.name.toLowerCase())) continue;
    await target.createIndex({
      collection,
      paths: index.paths,
      name: index.name,
      unique: index.unique,
    });
  }
}

function sameDocument(a: Document | undefined, b: Document): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Copies `docs` to `target` keeping `_id`, reads each copy back and compares it, then (when
 * `deleteFromSource`) deletes it from `source`. Answers the `_id`s that were already there.
 */
async function moveBatch(
  source: DocdbClient,
  target: DocdbClient,
  collection: string,
  docs: Document[],
  deleteFrom: { journal: RebalanceJournal | undefined; from: string; to: string } | undefined,
): Promise<string[]> {
  const batch =
    deleteFrom?.journal?.startBatch(
      collection,
      deleteFrom.from,
      deleteFrom.to,
      docs.map((d) => d._id as string),
    ) ?? 0;
  const result = await target.bulk(collection, docs);
  const existing: string[] = [];
  for (const failure of result.errors) {
    const doc = docs[failure.index] as Document;
    if (failure.code !== 'ERR_DOCUMENT_ID_EXISTS') {
      throw dbError('ERR_BAD_ARGUMENT', 'copyFailed', {
        collection,
        id: String(doc._id),
        cause: failure.error,
      });
    }
    // Copied by an earlier run that was stopped before the delete (a replicated document: or
    // by an earlier pass of this one, which copyReplicated tells apart). The old shard still
    // holds the document and takes its writes until the switch, so its version is the
    // current one: a copy that differs is older and is brought up to date.
    const there = await target.get(collection, doc._id as string);
    if (!sameDocument(there, doc)) {
      const { _id: _, ...body } = doc;
      await target.replace(collection, doc._id as string, body);
    }
    existing.push(doc._id as string);
  }
  for (const doc of docs) {
    const copy = await target.get(collection, doc._id as string);
    if (!sameDocument(copy, doc)) {
      throw dbError('ERR_BAD_ARGUMENT', 'copyDiffers', { collection, id: String(doc._id) });
    }
  }
  if (deleteFrom) {
    const journaled = deleteFrom.journal && { journal: deleteFrom.journal, batch };
    for (const doc of docs) await deleteAfterCatchUp(source, target, collection, doc, journaled);
    deleteFrom.journal?.finishBatch(batch);
  }
  return existing;
}

/** Times a document changed on its source while it moved is copied again before the delete. */
const CATCH_UP_TRIES = 5;

/**
 * Deletes a moved document from its source without losing a write that reached the source
 * since it was read (an UPDATE through a router with the old config). The source's current
 * version is read with its tag and carried to the copy when it differs; the delete is then
 * conditional on that tag, so the node refuses it (412) if the document changed again in
 * between, and the loop carries that change too. A document deleted on the source meanwhile is
 * deleted from the target as well. The delete is never retried by the client: a delete whose
 * answer was lost fails the run, and a re-run finds the document moved.
 */
async function deleteAfterCatchUp(
  source: DocdbClient,
  target: DocdbClient,
  collection: string,
  copied: Document,
  journaled: Journaled | undefined,
): Promise<void> {
  const id = copied._id as string;
  let onTarget: Document = copied;
  let last = '';
  for (let tries = 0; tries < CATCH_UP_TRIES; tries++) {
    const now = await source.getTagged(collection, id);
    if (now === undefined) {
      // Deleted on the source while it moved: the delete wins on the target too.
      await target.delete(collection, id).catch((error: DbError) => {
        if (error.code !== 'ERR_DOCUMENT_NOT_FOUND') throw error;
      });
      return;
    }
    if (!sameDocument(onTarget, now.doc)) {
      const { _id: _, ...body } = now.doc;
      await target.replace(collection, id, body);
      onTarget = now.doc;
    }
    try {
      journaled?.journal.deleting(journaled.batch, id);
      await source.delete(collection, id, { ifMatch: now.tag });
      journaled?.journal.deleted(journaled.batch, id);
      return;
    } catch (error) {
      // Changed or deleted since it was read: read it again and carry that over.
      const code = (error as DbError).code;
      if (code !== 'ERR_DOCUMENT_CHANGED' && code !== 'ERR_DOCUMENT_NOT_FOUND') throw error;
      last = (error as DbError).message;
    }
  }
  throw dbError('ERR_BAD_ARGUMENT', 'keptChanging', { collection, id, last });
}

/**
 * Moves the documents the plan names, pass after pass, until a pass finds nothing to move
 * (or REBALANCE_PASSES_MAX passes). Never deletes a document before its copy is confirmed.
 * With `journal` (the CLI passes `<new-config>.rebalance-journal`), each batch is recorded so
 * that a run after a stopped one settles what that one left half done.
 */
export async function executeRebalance(
  from: ClusterConfig,
  to: ClusterConfig,
  progress: Progress = () => {},
  options: { journal?: string } = {},
): Promise<RebalanceResult> {
  const journal =
    options.journal === undefined ? undefined : RebalanceJournal.take(options.journal);
  const shards = openShards(allShards(from, to));
  let finished = false;
  try {
    const settled = journal
      ? await settleOpenBatches(journal, shards)
      : { undone: 0, uncertain: [] };
    const first = await plan(from, to, shards);
    let current = first;
    let moved = 0;
    let resumed = 0;
    let passes = 0;
    // The replicated documents this run copied, by collection and target: a later pass copies
    // only what came since, so its copies are not found "already there" and counted as left
    // by an earlier run (issue 23, mend 3).
    const copied = new Map<string, Set<string>>();
    while (current.total > 0 && passes < REBALANCE_PASSES_MAX) {
      passes++;
      let done = 0;
      for (const { name, placement } of collectionsToMove(from, to)) {
        const step = async (n: number, again: number) => {
          moved += n - again;
          resumed += again;
          done += n;
          progress(done, current.total);
        };
        if (placement.strategy === 'hash') {
          await moveHash(from, to, shards, name, placement.path, step, journal);
        } else {
          await copyReplicated(from, to, shards, name, step, copied);
        }
      }
      current = await plan(from, to, shards);
    }
    finished = true;
    return { plan: first, moved, resumed, passes, remaining: current.total, ...settled };
  } finally {
    journal?.close(finished);
    await shards.close();
  }
}

/**
 * Settles the batches a stopped run left open, for each of their documents with a copy on
 * the new shard: the copy stays when the journal saw the move's own delete answered. A copy of
 * a document still on its old shard is removed (stale, it would outlive a later delete there;
 * the passes copy the document again). A copy of a document gone from its old shard is kept
 * and reported when the move's delete was sent but not answered, and removed otherwise (an
 * application deleted the document while the move was stopped).
 */
async function settleOpenBatches(
  journal: RebalanceJournal,
  shards: Shards,
): Promise<Pick<RebalanceResult, 'undone' | 'uncertain'>> {
  let undone = 0;
  const uncertain: RebalanceResult['uncertain'] = [];
  for (const batch of journal.open) {
    const source = shards.clients.get(batch.from);
    const target = shards.clients.get(batch.to);
    if (!source || !target) {
      throw dbError('ERR_BAD_ARGUMENT', 'journalUnknownShard', {
        file: journal.file,
        from: batch.from,
        to: batch.to,
      });
    }
    for (const id of batch.ids) {
      if (batch.deleted.has(id)) continue;
      if ((await target.get(batch.collection, id)) === undefined) continue;
      const onSource = (await source.get(batch.collection, id)) !== undefined;
      if (!onSource && batch.deleting.has(id)) {
        uncertain.push({ collection: batch.collection, id, shard: batch.to });
        continue;
      }
      // Still on its old shard: the copy is stale and would outlive a later delete there; the
      // passes copy the document again. Gone from there: an application deleted it.
      await target.delete(batch.collection, id).catch((error: DbError) => {
        if (error.code !== 'ERR_DOCUMENT_NOT_FOUND') throw error;
      });
      if (!onSource) undone++;
    }
  }
  journal.settled();
  return { undone, uncertain };
}

async function moveHash(
  from: ClusterConfig,
  to: ClusterConfig,
  shards: Shards,
  collection: string,
  pathText: string,
  step: (n: number, again: number) => Promise<void>,
  journal: RebalanceJournal | undefined,
): Promise<void> {
  const path = parsePath(pathText);
  for (const s of allShards(from, to)) {
    const source = shards.clients.get(s.name) as DocdbClient;
    for await (const page of documentsOf(source, collection)) {
      const byTarget = new Map<string, Document[]>();
      for (const doc of page) {
        const owner = ownerOf(doc, path, to.shards);
        if (owner === undefined || owner === s.name) continue;
        byTarget.set(owner, [...(byTarget.get(owner) ?? []), doc]);
      }
      for (const [owner, docs] of byTarget) {
        const target = shards.clients.get(owner) as DocdbClient;
        const again = await moveBatch(source, target, collection, docs, {
          journal,
          from: s.name,
          to: owner,
        });
        // A node creates indexes on existing collections only: after the first batch.
        await copyIndexes(source, target, collection);
        await step(docs.length, again.length);
      }
    }
  }
}

/**
 * Copies a replicated collection whole to each new shard. A document `copied` says this run
 * copied there in an earlier pass is brought up to date but counted neither as moved nor as
 * found from an earlier run; adds what it copies to `copied`.
 */
async function copyReplicated(
  from: ClusterConfig,
  to: ClusterConfig,
  shards: Shards,
  collection: string,
  step: (n: number, again: number) => Promise<void>,
  copied: Map<string, Set<string>>,
): Promise<void> {
  const oldNames = new Set(from.shards.map((s) => s.name));
  const sourceShard = from.shards.find((s) => to.shards.some((t) => t.name === s.name));
  if (!sourceShard) return;
  const source = shards.clients.get(sourceShard.name) as DocdbClient;
  for (const t of to.shards) {
    if (oldNames.has(t.name)) continue;
    const target = shards.clients.get(t.name) as DocdbClient;
    const key = `${collection}\u0000${t.name}`;
    const done = copied.get(key) ?? new Set<string>();
    copied.set(key, done);
    for await (const page of documentsOf(source, collection)) {
      // The whole page again, so a change made on the source since an earlier pass is carried;
      // only what this run had not copied counts.
      const fresh = page.filter((doc) => !done.has(doc._id as string));
      const existing = await moveBatch(source, target, collection, page, undefined);
      const earlier = existing.filter((id) => !done.has(id)).length;
      for (const doc of page) done.add(doc._id as string);
      await copyIndexes(source, target, collection);
      await step(fresh.length, earlier);
    }
  }
}
