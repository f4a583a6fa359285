/**
 * Collection scans: documents in id order, decoded whole or only in the paths a query reads,
 * in place in LMDB's buffer. The writing process also keeps the selected parts of complete
 * scans that repeat (the selection cache) and brings them up to every batch it commits, from
 * the documents the batch wrote, so a report that runs again after writes reads no documents.
 * Inside a write transaction scans read its own trees and never touch the cache.
 */

import {
  ID_BYTES,
  SELECTION_CACHE_BYTES_MAX,
  SELECTION_CACHE_DOCS_MAX,
  SELECTION_CACHE_IDLE_MS,
  SELECTIONS_KEPT_MAX,
  valueAt,
} from '../util/index.js';
import type { CollectionDef } from './catalog.js';
import type { FieldSelection } from './codec/index.js';
import type { StoreContext } from './context.js';
import type { Document } from './document-check.js';
import type { StoredDocument } from './reader.js';
import { count, ID_MIN, tree } from './records.js';
import type { DocumentWrite, TxnState } from './txn-state.js';

/** Selections whose last scan is remembered (to tell a repeated scan); then it starts over. */
const SCANNED_SELECTIONS_MAX = 1000;

/**
 * Documents one batch may put before the end of a kept selection (ids that sort among the
 * stored ones, such as client-given UUIDs); each moves every later id, so past this many the
 * selection is dropped and a rescan rebuilds it.
 */
const INSERTS_BEFORE_END_MAX = 8;

/** What a scan's visitor returns for a document the scan leaves out. */
const SKIPPED = Symbol('skipped');

/**
 * The selected parts of every document of a collection as of the last commit. Ids a scan was
 * given are never overwritten: a change to the ids other than an append makes a new buffer.
 */
interface CachedSelection {
  tree: string;
  selection: FieldSelection;
  /** The ids, 16 bytes each, in the order of `parts`; the buffer may hold room for more. */
  ids: Buffer;
  /**
   * The selected parts; null where the document was deleted since (its id keeps its place,
   * so that a delete moves nothing). Rebuilt without them past an eighth.
   */
  parts: Array<Document | null>;
  /** How many of `parts` are null. */
  deleted: number;
  /** Scans reading `parts` now: a commit then changes a copy, and they finish on theirs. */
  readers: number;
  /** When a scan last read it (Date.now()): idle past SELECTION_CACHE_IDLE_MS, it is dropped. */
  readAtMs: number;
  /** Its size by estimate (`scalarBytes`): when kept, plus each part a commit put since. */
  bytes: number;
}

/** Whether every selected value of `part` is a scalar (so no caller can alter a kept one). */
/** What a kept part costs beyond its values, by estimate: the object and its id's place. */
const PART_BYTES = 80;

/**
 * The estimated bytes of a part whose selected values are all scalars (a string by its
 * length, anything else a slot), or undefined when one is an array or object.
 */
function scalarBytes(selection: FieldSelection, part: Document): number | undefined {
  let bytes = PART_BYTES;
  for (const path of selection.paths) {
    const value = valueAt(part, path);
    if (value !== null && typeof value === 'object') return undefined;
    bytes += typeof value === 'string' ? 16 + 2 * value.length : 16;
  }
  return bytes;
}

/** What the selection cache holds: kept selections and the documents in them. */
export interface SelectionCacheStats {
  selections: number;
  documents: number;
}

/**
 * Collects a scan's selected parts; gives up when a selected value is not a scalar, or when
 * they pass the cache's byte budget.
 */
class SelectionRecorder {
  private readonly parts: Document[] = [];
  /** The ids copied end to end (holding each key's own Buffer would cost far more). */
  private ids: Buffer;
  private idCount = 0;
  private usable = true;
  private bytes = 0;

  /** `expected`: the collection's document count, to size the id buffer. */
  constructor(
    private readonly selection: FieldSelection,
    expected: number,
  ) {
    this.ids = Buffer.allocUnsafe(Math.max(1, expected) * ID_BYTES);
  }

  add(part: Document): void {
    if (!this.usable) return;
    const bytes = scalarBytes(this.selection, part);
    this.bytes += bytes ?? 0;
    if (bytes === undefined || this.bytes > SELECTION_CACHE_BYTES_MAX) {
      this.usable = false;
      this.parts.length = 0;
      return;
    }
    this.parts.push(part);
  }

  addId(id: Buffer): void {
    if (!this.usable) return;
    if ((this.idCount + 1) * ID_BYTES > this.ids.length) {
      const grown = Buffer.allocUnsafe(this.ids.length * 2);
      this.ids.copy(grown);
      this.ids = grown;
    }
    id.copy(this.ids, this.idCount * ID_BYTES);
    this.idCount++;
  }

  /** The cache entry, when the scan ran to its end with every value a scalar. */
  complete(tree: string): CachedSelection | undefined {
    if (!this.usable || this.idCount !== this.parts.length) return undefined;
    const { selection, ids, parts, bytes } = this;
    return { tree, selection, ids, parts, deleted: 0, readers: 0, readAtMs: Date.now(), bytes };
  }
}

/**
 * How far a filtered scan got, so that damage it meets names the record that failed
 * (store.ts): the last document it read, kept by the filter or not (the failed one is the
 * next), or the one whose read failed where the scan knows it. Without it, damage would
 * name the document after the last one the filter kept.
 */
export interface ScanProgress {
  lastRead?: Buffer;
  failed?: Buffer;
}

export class Scans {
  /** Selections of whole scans, by collection tree and selection signature. */
  private readonly selections = new Map<string, CachedSelection>();
  /** Selections scanned from the file before (a second scan keeps its selection). */
  private readonly scanned = new Set<string>();
  /** Moves on with every commit: a scan that began before one keeps nothing. */
  private generation = 0;

  constructor(private readonly ctx: StoreContext) {}

  /**
   * Brings every kept selection up to a batch that committed: each document the batch wrote
   * is decoded in the kept paths and put in its place, or its place is marked deleted. A
   * selection is dropped instead when the batch dropped its tree, wrote an object at a kept
   * path, rewrote a quarter of its documents or put too many before its last id, or when no
   * scan has read it for SELECTION_CACHE_IDLE_MS; every one is, when the batch wrote too
   * much to note.
   */
  committed(state: TxnState): void {
    this.generation++;
    if (this.selections.size === 0) return;
    const writes = state.documentWrites;
    if (!writes) {
      this.selections.clear();
      return;
    }
    const now = Date.now();
    const byTree = new Map<string, DocumentWrite[]>();
    for (const write of writes) {
      const list = byTree.get(write.tree);
      if (list) list.push(write);
      else byTree.set(write.tree, [write]);
    }
    for (const [key, kept] of this.selections) {
      if (state.handles.dropped.has(kept.tree)) {
        this.selections.delete(key);
        continue;
      }
      const treeWrites = byTree.get(kept.tree);
      if (!treeWrites) continue;
      if (now - kept.readAtMs > SELECTION_CACHE_IDLE_MS) {
        this.selections.delete(key);
        continue;
      }
      const target = kept.readers > 0 ? copyOf(kept) : kept;
      if (treeWrites.length > target.parts.length / 4 || !this.follow(target, treeWrites)) {
        this.selections.delete(key);
      } else if (target !== kept) {
        this.selections.set(key, target);
      }
    }
    this.fitBudget();
  }

  /** The kept selections and the documents they hold (deleted places included). */
  stats(): SelectionCacheStats {
    return { selections: this.selections.size, documents: this.keptDocuments() };
  }

  /** Whether any selection is kept: a batch notes its document writes only then. */
  get following(): boolean {
    return this.selections.size > 0;
  }

  /** Drops every kept selection (a batch failed: the store reads its state again). */
  forget(): void {
    this.generation++;
    this.selections.clear();
  }

  /** Documents in id order, starting after `afterId` when given. */
  scan(def: CollectionDef, afterId?: Buffer, txn?: TxnState): Generator<StoredDocument> {
    const start = afterId ? Buffer.concat([afterId, Buffer.from([0])]) : ID_MIN;
    return this.visit(def, start, txn, (bytes, size) =>
      this.ctx.docs.decode<Document>(bytes.subarray(0, size)),
    ) as Generator<StoredDocument>;
  }

  /**
   * Documents in id order, decoding from each only what a query reads: the `selection` is
   * decoded for `keep` to test, and a document kept is then decoded whole when `whole`, or
   * yielded as the selection (enough for `valueAt` on every selected path).
   *
   * The writer keeps the selection of a complete scan in memory when the same selection was
   * scanned before and every selected value is a scalar (so nothing a caller receives can
   * alter the cache), and brings it up to each commit (`committed`): further scans and
   * aggregates over the same paths, writes or not between them, read no documents at all.
   */
  *scanSelected(
    def: CollectionDef,
    selection: FieldSelection,
    keep: ((part: Document) => boolean) | undefined,
    whole: boolean,
    txn?: TxnState,
    progress: ScanProgress = {},
  ): Generator<StoredDocument> {
    const { docs } = this.ctx;
    let record: SelectionRecorder | undefined;
    const read = (bytes: Uint8Array, size: number) => {
      const part = docs.decodeSelected<Document>(bytes, size, selection);
      record?.add(part);
      if (keep && !keep(part)) return SKIPPED;
      return whole ? docs.decode<Document>(bytes.subarray(0, size)) : part;
    };
    if (txn || this.ctx.readOnly) {
      for (const { id, body } of this.visit(def, ID_MIN, txn, read)) {
        progress.lastRead = id;
        if (body !== SKIPPED) yield { id, body: body as Document };
      }
      return;
    }
    const cacheKey = `${def.dbName}\n${selection.signature}`;
    const cached = this.selections.get(cacheKey);
    if (cached) {
      const { ids, parts } = cached;
      const total = parts.length;
      cached.readers++;
      cached.readAtMs = Date.now();
      try {
        for (let i = 0; i < total; i++) {
          const part = parts[i];
          if (!part || (keep && !keep(part))) continue;
          const id = ids.subarray(i * ID_BYTES, (i + 1) * ID_BYTES);
          const body = whole ? this.getWhole(def, id, progress) : part;
          if (body) yield { id, body };
        }
      } finally {
        cached.readers--;
      }
      return;
    }
    // Keeping a selection costs about as much as the scan (its objects outlive the young
    // generation), so a scan keeps one only when the same selection was scanned before:
    // reads that repeat, such as a report. A selection read once leaves its scan lean.
    const repeated = this.scanned.has(cacheKey);
    if (this.scanned.size >= SCANNED_SELECTIONS_MAX) this.scanned.clear();
    this.scanned.add(cacheKey);
    const documents = repeated ? count(this.ctx, def) : Number.POSITIVE_INFINITY;
    if (documents <= SELECTION_CACHE_DOCS_MAX) record = new SelectionRecorder(selection, documents);
    const generation = this.generation;
    for (const { id, body } of this.visit(def, ID_MIN, undefined, read)) {
      progress.lastRead = id;
      record?.addId(id);
      if (body !== SKIPPED) yield { id, body: body as Document };
    }
    const complete = record?.complete(def.dbName);
    if (complete && generation === this.generation) this.keep(cacheKey, complete);
  }

  private getWhole(def: CollectionDef, id: Buffer, progress: ScanProgress): Document | undefined {
    const bytes = tree(this.ctx, def.dbName).getBinaryFast(id);
    try {
      return bytes === undefined ? undefined : this.ctx.docs.decode<Document>(bytes);
    } catch (error) {
      progress.failed = Buffer.from(id);
      throw error;
    }
  }

  private keep(key: string, selection: CachedSelection): void {
    this.selections.delete(key);
    this.selections.set(key, selection);
    this.fitBudget();
  }

  private keptDocuments(): number {
    let documents = 0;
    for (const kept of this.selections.values()) documents += kept.parts.length;
    return documents;
  }

  /** Drops the oldest kept selections until they fit the budget: documents, bytes, count. */
  private fitBudget(): void {
    let docs = this.keptDocuments();
    let bytes = 0;
    for (const kept of this.selections.values()) bytes += kept.bytes;
    for (const [k, s] of this.selections) {
      const fits =
        docs <= SELECTION_CACHE_DOCS_MAX &&
        bytes <= SELECTION_CACHE_BYTES_MAX &&
        this.selections.size <= SELECTIONS_KEPT_MAX;
      if (fits) break;
      this.selections.delete(k);
      docs -= s.parts.length;
      bytes -= s.bytes;
    }
  }

  /**
   * Applies a batch's writes to one tree, in order, to a selection no scan is reading.
   * Returns false when a written document has an object at a selected path, or the batch
   * puts too many documents before the end.
   */
  private follow(kept: CachedSelection, writes: DocumentWrite[]): boolean {
    let beforeEnd = 0;
    for (const { id, stored } of writes) {
      const at = position(kept, id);
      const found = at < kept.parts.length && idAt(kept, at).equals(id);
      if (stored === null) {
        if (found && kept.parts[at] !== null) {
          kept.parts[at] = null;
          kept.deleted++;
        }
        continue;
      }
      const part = this.ctx.docs.decodeSelected<Document>(stored, stored.length, kept.selection);
      const bytes = scalarBytes(kept.selection, part);
      if (bytes === undefined) return false;
      // What a write replaced is not taken off: an estimate that errs on the large side.
      kept.bytes += bytes;
      if (found) {
        if (kept.parts[at] === null) kept.deleted--;
        kept.parts[at] = part;
      } else if (at === kept.parts.length) {
        append(kept, id, part);
      } else if (++beforeEnd > INSERTS_BEFORE_END_MAX) {
        return false;
      } else {
        insertAt(kept, at, id, part);
      }
    }
    if (kept.deleted > kept.parts.length / 8) withoutDeleted(kept);
    return true;
  }

  /**
   * Runs `visit` on each stored document from `start`, in place in LMDB's buffer (no copy),
   * and yields its id with what `visit` returns. Inside a write transaction the plain handle
   * is used: a scan handle opened there would belong to the transaction.
   */
  private *visit(
    def: CollectionDef,
    start: Buffer,
    txn: TxnState | undefined,
    visit: (bytes: Uint8Array, size: number) => unknown,
  ): Generator<{ id: Buffer; body: unknown }> {
    if (txn) {
      for (const { key, value } of tree(this.ctx, def.dbName, txn).getRange({ start })) {
        yield { id: key, body: visit(value, value.length) };
      }
      return;
    }
    const { db, visitor } = this.ctx.handles.scan(def.dbName);
    const entries = db.getRange({ start })[Symbol.iterator]();
    try {
      for (;;) {
        // Another scan of the same collection may have stepped in between (a join, a stream).
        visitor.visit = visit;
        const step = entries.next();
        if (step.done) return;
        const { key, value } = step.value as { key: Buffer; value: unknown };
        yield { id: key, body: value };
      }
    } finally {
      entries.return?.();
    }
  }
}

/** The id at place `at` of a kept selection (a view). */
function idAt(kept: CachedSelection, at: number): Buffer {
  return kept.ids.subarray(at * ID_BYTES, (at + 1) * ID_BYTES);
}

/** The first place in `kept` whose id is not below `id` (binary search). */
function position(kept: CachedSelection, id: Buffer): number {
  let low = 0;
  let high = kept.parts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const order = kept.ids.compare(id, 0, ID_BYTES, middle * ID_BYTES, (middle + 1) * ID_BYTES);
    if (order < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Adds a document after the last: in place past the ids a scan may hold, else in a new buffer. */
function append(kept: CachedSelection, id: Buffer, part: Document): void {
  const count = kept.parts.length;
  if (kept.ids.length < (count + 1) * ID_BYTES) {
    const ids = Buffer.allocUnsafe(Math.max(1, count * 2) * ID_BYTES);
    kept.ids.copy(ids, 0, 0, count * ID_BYTES);
    kept.ids = ids;
  }
  id.copy(kept.ids, count * ID_BYTES);
  kept.parts.push(part);
}

/** Puts a document in at `at`, before the end, into a new id buffer. */
function insertAt(kept: CachedSelection, at: number, id: Buffer, part: Document): void {
  const count = kept.parts.length;
  const ids = Buffer.allocUnsafe(Math.max(kept.ids.length, (count + 1) * ID_BYTES));
  kept.ids.copy(ids, 0, 0, at * ID_BYTES);
  id.copy(ids, at * ID_BYTES);
  kept.ids.copy(ids, (at + 1) * ID_BYTES, at * ID_BYTES, count * ID_BYTES);
  kept.ids = ids;
  kept.parts.splice(at, 0, part);
}

/** Rebuilds a selection without its deleted places, into a new id buffer. */
function withoutDeleted(kept: CachedSelection): void {
  const live = kept.parts.length - kept.deleted;
  const ids = Buffer.allocUnsafe(Math.max(1, live + (live >>> 3)) * ID_BYTES);
  const parts: Document[] = [];
  kept.parts.forEach((part, i) => {
    if (part === null) return;
    kept.ids.copy(ids, parts.length * ID_BYTES, i * ID_BYTES, (i + 1) * ID_BYTES);
    parts.push(part);
  });
  kept.ids = ids;
  kept.parts = parts;
  kept.deleted = 0;
}

/** A selection of its own for a commit to change while scans read the original. */
function copyOf(kept: CachedSelection): CachedSelection {
  return { ...kept, parts: kept.parts.slice(), readers: 0 };
}
