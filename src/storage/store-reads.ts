/**
 * The store's reads (StoreReader) and the change log's, over the parts the Store composes:
 * each is a read of records.ts, scans.ts, snapshot.ts or change-log.ts with the damage it
 * meets named where it happens (damage.ts). It writes nothing and keeps no state of its own;
 * store.ts, which extends it, opens the file, writes and maintains it.
 */

import type { CollectionDef, IndexDef } from './catalog.js';
import type { Catalog } from './catalog-state.js';
import type { ChangeEntry } from './change-entry.js';
import type { ChangeHold, ChangeLog, LogPosition, TermRun } from './change-log.js';
import type { DocumentCodec, FieldSelection, JsonProjection, Structure } from './codec/index.js';
import type { StoreContext } from './context.js';
import {
  asDamage,
  type DamageSite,
  damageAfter,
  guardItems,
  guardRead,
  guardScan,
} from './damage.js';
import type { Document } from './document-check.js';
import type { Handles } from './handles.js';
import type { DamageAt } from './json-lines.js';
import type { JsonKeep, StoredDocument, StoreReader } from './reader.js';
import {
  count,
  getBody,
  getJson,
  getSelectedBody,
  getTagged,
  getTaggedJson,
  indexIdForUniqueKey,
  indexIds,
  indexIdsForKey,
  nextId,
} from './records.js';
import type { ScanProgress, Scans } from './scans.js';
import {
  type DocumentSnapshot,
  type FileSnapshot,
  openDocumentSnapshot,
  openFileSnapshot,
} from './snapshot.js';

/** The parts of an open data file that its reads go through (store.ts makes them). */
export interface StoreParts {
  ctx: StoreContext;
  handles: Handles;
  catalog: Catalog;
  log: ChangeLog;
  docs: DocumentCodec;
  scans: Scans;
}

export class StoreReads implements StoreReader {
  readonly file: string;
  readonly readOnly: boolean;
  protected readonly ctx: StoreContext;
  protected readonly handles: Handles;
  protected readonly catalog: Catalog;
  protected readonly log: ChangeLog;
  protected readonly docs: DocumentCodec;
  protected readonly scans: Scans;

  protected constructor(parts: StoreParts) {
    this.ctx = parts.ctx;
    this.file = parts.ctx.file;
    this.readOnly = parts.ctx.readOnly;
    this.handles = parts.handles;
    this.catalog = parts.catalog;
    this.log = parts.log;
    this.docs = parts.docs;
    this.scans = parts.scans;
  }

  /** Where a read of part of the file happens, for damage it meets (damage.ts). */
  protected site(part: string): DamageSite {
    return { file: this.file, part };
  }

  /** Where a read of a collection happens. */
  protected inCollection(def: CollectionDef, id?: Buffer): DamageSite {
    return { file: this.file, collection: def.name, id };
  }

  /** Where a read of an index happens (its collection found by the index's tree). */
  private inIndex(index: IndexDef): DamageSite {
    const owner = [...this.catalog.all().values()].find((def) =>
      def.indexes.some((i) => i.dbName === index.dbName),
    );
    return { file: this.file, collection: owner?.name ?? '?', index: index.name };
  }

  // ---- the node's place in the log ---------------------------------------------------

  /** The node's replication term, the seqs of its change log and the term of its newest entry. */
  nodeState(): LogPosition {
    return this.log.position();
  }

  /**
   * The term of the change-log entry at `seq` while the log retains it; at the floor
   * (`seqFloor`), the floor's term; undefined below the floor or past the last seq.
   */
  termAt(seq: number): number | undefined {
    return this.log.termAt(seq);
  }

  /**
   * The hash-chain link (hex) of the change-log entry at `seq` while the log retains it (at
   * the floor, the floor's); undefined elsewhere and for entries written before the chain.
   */
  chainAt(seq: number): string | undefined {
    return this.log.chainAt(seq);
  }

  /** The term history: one run per term the node's entries carry, oldest first. */
  termRuns(): readonly TermRun[] {
    return this.log.termRuns();
  }

  /** This node's tag in the terms it makes when promoted (undefined until one is drawn). */
  termTag(): number | undefined {
    return this.catalog.meta.termTag;
  }

  // ---- the change log ------------------------------------------------------------------

  /** Every retained change-log entry with a seq greater than `afterSeq`, in order. */
  changesAfter(afterSeq: number): Iterable<ChangeEntry> {
    return guardItems(() => this.site('the change log'), this.log.entriesAfter(afterSeq));
  }

  /**
   * Every retained change-log entry after `afterSeq` as the bytes the log stores, in order,
   * with this file's shared structures (`sharedStructures`) that their documents need.
   */
  storedChangesAfter(afterSeq: number): Iterable<{ seq: number; bytes: Uint8Array }> {
    return guardItems(() => this.site('the change log'), this.log.storedAfter(afterSeq));
  }

  /** This file's shared document structures now, in id order (read-only). */
  sharedStructures(): readonly Structure[] {
    return this.docs.structures;
  }

  /**
   * The entries after `afterSeq`, then each new one as it commits, until `signal` aborts.
   * Throws ERR_CHANGES_TRIMMED when the entries it needs are gone.
   */
  async *followChanges(afterSeq: number, signal?: AbortSignal): AsyncGenerator<ChangeEntry> {
    try {
      yield* this.log.follow(afterSeq, signal);
    } catch (error) {
      throw asDamage(error, this.site('the change log'));
    }
  }

  /** Resolves with the last seq once a commit passes `afterSeq` (or `signal` aborts). */
  whenCommittedAfter(afterSeq: number, signal?: AbortSignal): Promise<number> {
    return this.log.whenCommittedAfter(afterSeq, signal);
  }

  /** Keeps the entries after `seq` from trims until released (a follower's place). */
  holdChanges(seq: number): ChangeHold {
    return this.log.hold(seq);
  }

  /** The whole file at one seq, for a follower that must start over. */
  openFileSnapshot(): FileSnapshot {
    return openFileSnapshot(this.ctx);
  }

  // ---- reads ---------------------------------------------------------------------------

  /** Canonical names of every collection, sorted. */
  collectionNames(): string[] {
    return this.catalog.names();
  }

  /** The definition of a collection (canonical name), if it exists. */
  getCollection(name: string): CollectionDef | undefined {
    return this.catalog.get(name);
  }

  count(def: CollectionDef): number {
    return guardRead(this.inCollection(def), () => count(this.ctx, def));
  }

  // The point reads below (by id: bodies, selections, tags, JSON text) catch damage
  // themselves rather than through guardRead, so a lookup makes no closure and no damage
  // site unless a read fails (issue 25): the served GET by _id takes getTaggedJson.
  getBody(def: CollectionDef, id: Buffer): Document | undefined {
    try {
      return getBody(this.ctx, def, id);
    } catch (error) {
      throw asDamage(error, this.inCollection(def, id));
    }
  }

  getSelected(def: CollectionDef, id: Buffer, selection: FieldSelection): Document | undefined {
    try {
      return getSelectedBody(this.ctx, def, id, selection);
    } catch (error) {
      throw asDamage(error, this.inCollection(def, id));
    }
  }

  /** A document's body with its tag (see records.getTagged), or undefined. */
  getTagged(def: CollectionDef, id: Buffer): { body: Document; tag: string } | undefined {
    try {
      return getTagged(this.ctx, def, id);
    } catch (error) {
      throw asDamage(error, this.inCollection(def, id));
    }
  }

  getJson(
    def: CollectionDef,
    id: Buffer,
    projection?: JsonProjection,
    keep?: JsonKeep,
  ): string | undefined {
    try {
      return getJson(this.ctx, def, id, projection, keep);
    } catch (error) {
      throw asDamage(error, this.inCollection(def, id));
    }
  }

  /** A document's JSON text with its tag (see records.getTaggedJson), or undefined. */
  getTaggedJson(def: CollectionDef, id: Buffer): { json: string; tag: string } | undefined {
    try {
      return getTaggedJson(this.ctx, def, id);
    } catch (error) {
      throw asDamage(error, this.inCollection(def, id));
    }
  }

  scan(def: CollectionDef, afterId?: Buffer): Generator<StoredDocument> {
    return guardScan(this.inCollection(def), this.scans.scan(def, afterId), (after) =>
      nextId(this.ctx, def, after ?? afterId),
    );
  }

  scanSelected(
    def: CollectionDef,
    selection: FieldSelection,
    keep: ((part: Document) => boolean) | undefined,
    whole: boolean,
  ): Generator<StoredDocument> {
    const progress: ScanProgress = {};
    return guardScan(
      this.inCollection(def),
      this.scans.scanSelected(def, selection, keep, whole, undefined, progress),
      () => progress.failed ?? nextId(this.ctx, def, progress.lastRead),
    );
  }

  indexIds(index: IndexDef, start: Buffer, end: Buffer): Generator<Buffer> {
    return guardItems(() => this.inIndex(index), indexIds(this.ctx, index, start, end));
  }

  indexIdsForKey(index: IndexDef, key: Buffer): Generator<Buffer> {
    return guardItems(() => this.inIndex(index), indexIdsForKey(this.ctx, index, key));
  }

  indexIdForUniqueKey(index: IndexDef, key: Buffer): Buffer | undefined {
    try {
      return indexIdForUniqueKey(this.ctx, index, key);
    } catch (error) {
      throw asDamage(error, this.inIndex(index));
    }
  }

  /**
   * Pins the current committed state for reads that span event-loop turns (a streamed
   * result). Release it when done: a pinned snapshot keeps old pages from reuse.
   */
  openSnapshot(): DocumentSnapshot {
    const snapshot = openDocumentSnapshot(this.ctx);
    return {
      getBody: (def, id) => guardRead(this.inCollection(def, id), () => snapshot.getBody(def, id)),
      getJson: (def, id, projection) =>
        guardRead(this.inCollection(def, id), () => snapshot.getJson(def, id, projection)),
      count: (def) => guardRead(this.inCollection(def), () => snapshot.count(def)),
      scanLines: (def, projection, range) =>
        snapshot.scanLines(def, projection, range, this.damageIn(def)),
      idLines: (def, projection, ids) => snapshot.idLines(def, projection, ids, this.damageIn(def)),
      release: () => snapshot.release(),
    };
  }
  /**
   * How a stream's read of a collection reports damage: at the document read, or after a
   * failed cursor step at the one after the last read, as a scan does (damage.ts).
   */
  private damageIn(def: CollectionDef): DamageAt {
    return (error, at) =>
      'id' in at
        ? asDamage(error, this.inCollection(def, at.id))
        : damageAfter(this.inCollection(def), error, at.after, (after) =>
            nextId(this.ctx, def, after),
          );
  }
}
