/**
 * The router's REST document calls (DESIGN §7): inserts and bulk loads to the owners of their
 * shard keys, by-key and by-`_id` reads and writes on the shards that may hold the document,
 * replicated collections written everywhere under one `_id`, indexes on every shard, stats
 * counted (a replicated collection once) and collections unioned. SQL goes through router.ts; the shards through shard-set.ts.
 */

import type {
  BulkOptions,
  BulkResult,
  ByKeyAnswer,
  CreatedIndex,
  DeleteAnswer,
  Document,
  DropAnswer,
  DroppedIndex,
  IndexInfo,
  IndexRequest,
  InsertAnswer,
  ListAnswer,
  ListOptions,
  NodeStats,
  ReplaceAnswer,
  ReplaceByKeyAnswer,
  RouterStats,
  StoreStats,
  TaggedDocument,
  WriteCondition,
} from '../client/index.js';
import { atomicBulkRefused, collectionNotFound, dbError, isDbError } from '../errors/index.js';
import { LIST_LIMIT_DEFAULT, normalizeCollectionName, parsePath, samePath } from '../util/index.js';
import { countCollections } from './collection-counts.js';
import type { ClusterConfig, ClusterShard } from './config.js';
import { shardFor } from './hash.js';
import { keyPathOf, requirePlacement, routedPlan, routeOf } from './route-plan.js';
import type { ShardNodes } from './shard-members.js';
import type { ShardSet } from './shard-set.js';
import {
  byId,
  deleteIds,
  insertOnce,
  isPlainObject,
  keepsOwner,
  keyTextValues,
  ownerOfDocument,
  withRouterIds,
} from './write-plan.js';

/** How long a router's `GET /stats` waits for each replica-set member's status. */
export const STATS_MEMBERS_TIMEOUT_MS = 1_000;

export class RouterDocuments {
  constructor(
    readonly config: ClusterConfig,
    private readonly shards: ShardSet,
  ) {}

  /** `POST /collections/{c}`: to the owner of the document's shard key, or every shard. */
  async insert(collection: string, doc: unknown): Promise<InsertAnswer> {
    const placement = requirePlacement(this.config, collection);
    await this.shards.ensureEverywhere(collection);
    if (!isPlainObject(doc))
      return this.shards.ask(this.config.shards[0] as ClusterShard, (c) =>
        c.insert(collection, doc as Document),
      );
    if (placement.strategy === 'replicated') {
      const { docs, ids } = withRouterIds([doc]);
      const [first] = await this.shards.everywhere(
        (c) => c.insert(collection, docs[0] as Document),
        (c) => deleteIds(c, collection, ids),
      );
      return first as InsertAnswer;
    }
    // Under an `_id` the router gives, so a replica set's new leader can be asked again
    // after the old one failed to answer: a copy the first try stored is found, not doubled.
    const [withId] = withRouterIds([doc]).docs as Document[];
    return this.shards.ask(
      ownerOfDocument(this.config, placement, doc),
      (c, again) => insertOnce(c, collection, withId as Document, again),
      'any',
    );
  }

  /**
   * `POST /collections/{c}/bulk`: each document to its owner, the per-item results put back
   * in input order. With `atomic`, a shard's refusal undoes what the other shards stored.
   */
  async bulk(collection: string, docs: unknown[], options: BulkOptions = {}): Promise<BulkResult> {
    const placement = requirePlacement(this.config, collection);
    await this.shards.ensureEverywhere(collection);
    if (placement.strategy === 'replicated') {
      const { docs: withIds, ids } = withRouterIds(docs);
      const [first] = await this.shards.everywhere(
        (c) => c.bulk(collection, withIds as Document[], options),
        (c) => deleteIds(c, collection, ids),
      );
      return first as BulkResult;
    }
    const errors: BulkResult['errors'] = [];
    const byOwner = new Map<ClusterShard, number[]>();
    docs.forEach((doc, index) => {
      try {
        const owner = isPlainObject(doc)
          ? ownerOfDocument(this.config, placement, doc)
          : (this.config.shards[0] as ClusterShard);
        const owned = byOwner.get(owner);
        if (owned) owned.push(index);
        else byOwner.set(owner, [index]);
      } catch (error) {
        if (!isDbError(error)) throw error;
        errors.push({ index, error: error.message, code: error.code });
      }
    });
    if (options.atomic && errors.length > 0) throw atomicBulkRefused(errors, docs.length);
    const groups = [...byOwner.entries()];
    const settled = await Promise.allSettled(
      groups.map(([owner, indexes]) =>
        this.shards.ask(owner, (c) =>
          c.bulk(
            collection,
            indexes.map((k) => docs[k] as Document),
            options,
          ),
        ),
      ),
    );
    const failed = settled.find((o) => o.status === 'rejected');
    if (failed) {
      if (options.atomic) {
        // Each shard was all-or-nothing; what the others stored goes too.
        await Promise.allSettled(
          groups.flatMap(([owner], g) => {
            const o = settled[g] as PromiseSettledResult<BulkResult>;
            return o.status === 'fulfilled'
              ? [this.shards.ask(owner, (c) => deleteIds(c, collection, o.value.ids))]
              : [];
          }),
        );
      }
      throw failed.reason;
    }
    const idOf = new Map<number, string>();
    groups.forEach(([, indexes], g) => {
      const result = (settled[g] as PromiseFulfilledResult<BulkResult>).value;
      const refused = new Set(result.errors.map((e) => e.index));
      for (const e of result.errors) errors.push({ ...e, index: indexes[e.index] as number });
      let next = 0;
      indexes.forEach((index, local) => {
        if (!refused.has(local)) idOf.set(index, result.ids[next++] as string);
      });
    });
    errors.sort((a, b) => a.index - b.index);
    const ids = docs.flatMap((_, index) => (idOf.has(index) ? [idOf.get(index) as string] : []));
    return { ids, errors };
  }

  /** `GET /collections/{c}`: a page in `_id` order, merged from every shard's page. */
  async list(collection: string, options: ListOptions = {}): Promise<ListAnswer> {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') {
      return (
        await this.shards.askAny(this.config.shards, (c) => c.list(collection, options), 'read')
      ).answer;
    }
    const pages = await this.shards.partAnswers(
      (c) => c.list(collection, options),
      undefined,
      'read',
    );
    const limit = options.limit ?? LIST_LIMIT_DEFAULT;
    const documents = byId(pages.flatMap((p) => p.documents)).slice(0, limit);
    return { documents, count: documents.length };
  }

  /** The shards a by-key request on `field` = the value `text` spells must ask. */
  private keyTargets(collection: string, field: string, text: string): ClusterShard[] {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') return this.config.shards.slice(0, 1);
    let same = false;
    try {
      same = samePath(parsePath(field), keyPathOf(placement));
    } catch {
      same = false;
    }
    if (!same) return [...this.config.shards];
    const owners = new Set(keyTextValues(text).map((v) => shardFor(v, this.config.shards).name));
    return this.config.shards.filter((s) => owners.has(s.name));
  }

  /** `GET …/by/{field}/{value}`: the owners on the shard key, else every shard. */
  async getByKey(collection: string, field: string, text: string): Promise<ByKeyAnswer> {
    const placement = requirePlacement(this.config, collection);
    const targets = this.keyTargets(collection, field, text);
    if (placement.strategy === 'replicated') {
      const { shard, answer } = await this.shards.askAny(this.config.shards, (c) =>
        c.getByKey(collection, field, text),
      );
      return {
        ...answer,
        plan: routedPlan({ kind: 'single', count: 1, shard: shard.name }, answer.plan),
      };
    }
    const answers = await this.shards.partAnswers(
      (c) => c.getByKey(collection, field, text),
      targets,
    );
    const documents = byId(answers.flatMap((a) => a.documents));
    const plan = routedPlan(routeOf(targets), (answers[0] as ByKeyAnswer).plan);
    return { documents, count: documents.length, plan };
  }

  /** `PUT …/by/{field}/{value}`: replaces the one match wherever it lives (404 none, 409 several). */
  async replaceByKey(
    collection: string,
    field: string,
    text: string,
    doc: unknown,
    condition: WriteCondition = {},
  ): Promise<ReplaceByKeyAnswer> {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') {
      unconditional(collection, condition);
      const [first] = await this.shards.all((c) =>
        c.replaceByKey(collection, field, text, doc as Document),
      );
      return first as ReplaceByKeyAnswer;
    }
    const targets = this.keyTargets(collection, field, text);
    const found = await this.shards.parts(
      (c) => c.getByKey(collection, field, text),
      targets,
      'any',
    );
    const matched = found.reduce((n, f) => n + f.answer.count, 0);
    if (matched === 0)
      throw dbError('ERR_DOCUMENT_NOT_FOUND', 'byKey', { collection, field, value: text });
    if (matched > 1)
      throw dbError(
        'ERR_AMBIGUOUS_MATCH',
        'byKey',
        { matched, collection, field, value: text },
        { matched },
      );
    const owner = (found.find((f) => f.answer.count === 1) as { shard: ClusterShard }).shard;
    if (isPlainObject(doc)) keepsOwner(this.config, placement, doc, owner);
    return this.shards.ask(owner, (c) =>
      c.replaceByKey(collection, field, text, doc as Document, condition),
    );
  }

  /** `DELETE …/by/{field}/{value}`: every match on the shards that may hold one. */
  async deleteByKey(collection: string, field: string, text: string): Promise<DeleteAnswer> {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') {
      const [first] = await this.shards.all((c) => c.deleteByKey(collection, field, text));
      return first as DeleteAnswer;
    }
    const answers = await this.shards.partAnswers(
      (c) => c.deleteByKey(collection, field, text),
      this.keyTargets(collection, field, text),
    );
    return { deleted: answers.reduce((n, a) => n + a.deleted, 0) };
  }

  /** The shard holding the document with this `_id` (the id does not say its owner). */
  private async holderOf(
    collection: string,
    id: string,
  ): Promise<{ shard: ClusterShard; found: TaggedDocument }> {
    const found = await this.shards.parts((c) => c.getTagged(collection, id), undefined, 'any');
    const hit = found.find((f) => f.answer !== undefined);
    if (!hit) throw dbError('ERR_DOCUMENT_NOT_FOUND', 'byId', { id, collection });
    return { shard: hit.shard, found: hit.answer as TaggedDocument };
  }

  /**
   * `GET /collections/{c}/{_id}`: asks every shard (one for a replicated collection). A hash
   * collection's document comes with the tag of the shard holding it; a replicated one's has
   * none, as each shard's copy has its own.
   */
  async getTagged(collection: string, id: string): Promise<TaggedDocument | undefined> {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') {
      const { answer } = await this.shards.askAny(this.config.shards, (c) => c.get(collection, id));
      return answer === undefined ? undefined : { doc: answer };
    }
    const found = await this.shards.parts((c) => c.getTagged(collection, id), undefined, 'any');
    return found.find((f) => f.answer !== undefined)?.answer;
  }

  /** `PUT /collections/{c}/{_id}`: on the shard that holds it; the shard key may not move it. */
  async replace(
    collection: string,
    id: string,
    doc: unknown,
    condition: WriteCondition = {},
  ): Promise<ReplaceAnswer> {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') {
      unconditional(collection, condition);
      const [first] = await this.shards.all((c) => c.replace(collection, id, doc as Document));
      return first as ReplaceAnswer;
    }
    const { shard } = await this.holderOf(collection, id);
    if (isPlainObject(doc)) keepsOwner(this.config, placement, doc, shard);
    return this.shards.ask(shard, (c) => c.replace(collection, id, doc as Document, condition));
  }

  /** `DELETE /collections/{c}/{_id}`: every shard; 404 when none held it. */
  async delete(
    collection: string,
    id: string,
    condition: WriteCondition = {},
  ): Promise<DeleteAnswer> {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') unconditional(collection, condition);
    const answers = await this.shards.partAnswers(async (c) => {
      const doc = await c.get(collection, id);
      return doc === undefined ? 0 : (await c.delete(collection, id, condition)).deleted;
    });
    const deleted = answers.reduce((n, d) => n + d, 0);
    if (deleted === 0) throw dbError('ERR_DOCUMENT_NOT_FOUND', 'byId', { id, collection });
    return { deleted: Math.min(deleted, 1) };
  }

  /** `DELETE /collections/{c}` (confirmed by the caller): on every shard. */
  async dropCollection(collection: string): Promise<DropAnswer> {
    requirePlacement(this.config, collection);
    const [first] = await this.shards.partAnswers((c) => c.dropCollection(collection));
    this.shards.forget(collection);
    return first as DropAnswer;
  }

  // ---- indexes, stats, collections -------------------------------------------------------

  /** `GET /indexes/{c}`: one shard's list (every shard has the same indexes). */
  async indexes(collection: string): Promise<IndexInfo[]> {
    requirePlacement(this.config, collection);
    return (await this.shards.partAnswers((c) => c.indexes(collection))).at(0) ?? [];
  }

  /** `POST /index`: on every shard. */
  async createIndex(request: IndexRequest): Promise<CreatedIndex> {
    requirePlacement(this.config, request.collection);
    await this.existingEverywhere(request.collection);
    const [first] = await this.shards.all((c) => c.createIndex(request));
    return first as CreatedIndex;
  }

  /**
   * `DELETE /indexes/{c}/{name}`: on every shard that holds the collection. A shard that lacks
   * the index is passed over, so a drop that failed half-way (a shard down) can simply be
   * sent again; when no shard has it, the first shard's 404 is the answer.
   */
  async dropIndex(collection: string, name: string): Promise<DroppedIndex> {
    requirePlacement(this.config, collection);
    let missing: unknown;
    const answers = await this.shards.partAnswers(async (c) => {
      try {
        return [await c.dropIndex(collection, name)];
      } catch (error) {
        if (!isDbError(error, 'ERR_INDEX_NOT_FOUND')) throw error;
        missing ??= error;
        return [];
      }
    });
    const [first] = answers.flat();
    if (first === undefined) throw missing;
    return first;
  }

  /**
   * Makes sure a collection some shard holds is on every shard (an index is created on each);
   * ERR_COLLECTION_NOT_FOUND, as a node words it, when no shard holds it.
   */
  async existingEverywhere(collection: string): Promise<void> {
    const known = await this.collections();
    if (!known.includes(normalizeCollectionName(collection))) {
      throw collectionNotFound(collection, known);
    }
    await this.shards.ensureEverywhere(collection);
  }

  /**
   * `GET /stats`: documents per collection (collection-counts.ts: a hash collection's summed
   * over its shards, a replicated one's counted once), each shard's own stats from its
   * leader, and its nodes: a replica set's members asked at once, beside the stats, within
   * STATS_MEMBERS_TIMEOUT_MS, so a member that is down shows as down without failing or
   * slowing the answer much.
   */
  async stats(): Promise<RouterStats> {
    const { shards } = this.config;
    const [all, nodes] = await Promise.all([
      this.shards.all(async (c) => storeStats(await c.stats())),
      Promise.all(shards.map((s) => this.shards.membersOf(s).nodes(STATS_MEMBERS_TIMEOUT_MS))),
    ]);
    const counts = countCollections(
      this.config,
      all.map((stats) => stats.collections),
    );
    return {
      collections: counts.map(({ name, count }) => ({ name, count })),
      shards: all.map((stats, k) => ({
        name: (shards[k] as ClusterShard).name,
        stats,
        ...(nodes[k] as ShardNodes),
      })),
    };
  }

  /** `GET /collections`: the union of every shard's names, sorted. */
  async collections(): Promise<string[]> {
    const all = await this.shards.all((c) => c.collections());
    return [...new Set(all.flat())].sort();
  }
}

/** A shard's stats: a node's, never a router's (a router is no shard). */
function storeStats(stats: NodeStats): StoreStats {
  if ('shards' in stats) {
    throw dbError('ERR_CLUSTER_CONFIG_INVALID', 'shardIsRouter');
  }
  return stats;
}

/** A replicated collection's copies each have their own tag: no one tag can guard them all. */
function unconditional(collection: string, condition: WriteCondition): void {
  if (condition.ifMatch === undefined) return;
  throw dbError('ERR_BAD_ARGUMENT', 'ifMatchReplicated', { collection });
}
