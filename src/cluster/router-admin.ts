/**
 * The router's admin calls (DESIGN §7: a client cannot tell a router from a node). Flush,
 * checkpoint, compaction and index rebuilds run on every shard, and each answer keeps the
 * node's shape with the figures summed, plus `shards`: every shard's own answer by name.
 */

import type {
  CheckpointAnswer,
  CompactResult,
  DocdbClient,
  FlushAnswer,
  RebuildIndexAnswer,
  RebuildIndexesAnswer,
} from '../client/index.js';
import type { ClusterConfig } from './config.js';
import { requirePlacement } from './route-plan.js';
import type { ShardSet } from './shard-set.js';

/** A node's answer, with every shard's own answer beside it. */
export type PerShard<T> = T & { shards: ({ name: string } & T)[] };

export class RouterAdmin {
  constructor(
    private readonly config: ClusterConfig,
    private readonly shards: ShardSet,
  ) {}

  /** Every shard's answer to `fn`, named. */
  private async named<T>(
    fn: (client: DocdbClient) => Promise<T>,
  ): Promise<({ name: string } & T)[]> {
    const answers = await this.shards.all(fn);
    return answers.map((answer, k) => ({ name: this.config.shards[k]?.name ?? '', ...answer }));
  }

  /** `POST /admin/flush` on every shard; `lastSeq` is the sum of theirs. */
  async flush(): Promise<PerShard<FlushAnswer>> {
    const shards = await this.named((c) => c.flush());
    return { flushed: true, lastSeq: sum(shards, (s) => s.lastSeq), shards };
  }

  /** `POST /admin/checkpoint` on every shard; seqs and trimmed entries summed. */
  async checkpoint(): Promise<PerShard<CheckpointAnswer>> {
    const shards = await this.named((c) => c.checkpoint());
    return {
      checkpointed: true,
      lastSeq: sum(shards, (s) => s.lastSeq),
      trimmedEntries: sum(shards, (s) => s.trimmedEntries),
      firstSeq: Math.min(...shards.map((s) => s.firstSeq)),
      shards,
    };
  }

  /** `POST /admin/compact/{c}` on every shard; pages and bytes summed. */
  async compact(collection: string): Promise<PerShard<CompactResult>> {
    requirePlacement(this.config, collection);
    const shards = await this.named((c) => c.compact(collection));
    return {
      collection,
      pagesBefore: sum(shards, (s) => s.pagesBefore),
      pagesAfter: sum(shards, (s) => s.pagesAfter),
      pagesCompacted: sum(shards, (s) => s.pagesCompacted),
      bytesReclaimed: sum(shards, (s) => s.bytesReclaimed),
      freePagesBefore: sum(shards, (s) => s.freePagesBefore),
      freePagesAfter: sum(shards, (s) => s.freePagesAfter),
      fileSizeBytes: sum(shards, (s) => s.fileSizeBytes),
      shards,
    };
  }

  /** `POST /admin/rebuild-indexes/{c}` on every shard (each has the same indexes). */
  async rebuildIndexes(collection: string): Promise<PerShard<RebuildIndexesAnswer>> {
    requirePlacement(this.config, collection);
    const shards = await this.named((c) => c.rebuildIndexes(collection));
    return { collection, rebuilt: shards[0]?.rebuilt ?? [], shards };
  }

  /** `POST /admin/rebuild-index/{c}/{name}` on every shard. */
  async rebuildIndex(collection: string, name: string): Promise<PerShard<RebuildIndexAnswer>> {
    requirePlacement(this.config, collection);
    const shards = await this.named((c) => c.rebuildIndex(collection, name));
    return { collection, rebuilt: (shards[0] as RebuildIndexAnswer).rebuilt, shards };
  }
}

function sum<T>(items: T[], value: (item: T) => number): number {
  return items.reduce((total, item) => total + value(item), 0);
}
