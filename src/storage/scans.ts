/**
 * Collection scans: documents in id order, decoded whole or only in the paths a query reads,
 * in place in LMDB's buffer. The writing process also keeps the selected parts of complete
 * scans that repeat with no write in between (the selection cache), until its next write.
 * Inside a write transaction scans read its own trees and never touch the cache.
 */

import { ID_BYTES, SELECTION_CACHE_DOCS_MAX, valueAt } from '../util/index.js';
import type { CollectionDef } from './catalog.js';
import type { FieldSelection } from './codec/index.js';
import type { StoreContext } from './context.js';
import type { Document } from './document-check.js';
import type { StoredDocument } from './reader.js';
import { count, ID_MIN, tree } from './records.js';
import type { TxnState } from './txn-state.js';

/** Selections whose last scan is remembered (to tell a repeated scan); then it starts over. */
const SCANNED_SELECTIONS_MAX = 1000;

/** What a scan's visitor returns for a document the scan leaves out. */
const SKIPPED = Symbol('skipped');

/** The selected parts of every document of a collection, as one write generation left them. */
interface CachedSelection {
  generation: number;
  /** The ids, 16 bytes each, in the order of `parts`. */
  ids: Buffer;
  parts: Document[];
}

/** Collects a scan's selected parts; gives up when a selected value is not a scalar. */
class SelectionRecorder {
  private readonly parts: Document[] = [];
  /** The ids copied end to end (holding each key's own Buffer would cost far more). */
  private ids: Buffer;
  private idCount = 0;
  private usable = true;

  /** `expected`: the collection's document count, to size the id buffer. */
  constructor(
    private readonly selection: FieldSelection,
    expected: number,
  ) {
    this.ids = Buffer.allocUnsafe(Math.max(1, expected) * ID_BYTES);
  }

  add(part: Document): void {
    if (!this.usable) return;
    for (const path of this.selection.paths) {
      const value = valueAt(part, path);
      if (value !== null && typeof value === 'object') {
        this.usable = false;
        this.parts.length = 0;
        return;
      }
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
  complete(generation: number): CachedSelection | undefined {
    if (!this.usable || this.idCount !== this.parts.length) return undefined;
    return { generation, ids: this.ids.subarray(0, this.idCount * ID_BYTES), parts: this.parts };
  }
}

export class Scans {
  /** Selections of whole scans, by collection tree and selection signature. */
  private readonly selections = new Map<string, CachedSelection>();
  /** The write generation at which each selection was last scanned from the file. */
  private readonly scannedAt = new Map<string, number>();
  /** Moves on with every write job: a cached selection of an older one is stale. */
  private generation = 0;

  constructor(private readonly ctx: StoreContext) {}

  /** Marks every cached selection stale (a write job starts or a batch ends). */
  invalidate(): void {
    this.generation++;
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
   * The writer keeps the selection of a complete scan in memory until its next write when the
   * same selection was scanned before since the last write, and every selected value is a
   * scalar (so nothing a caller receives can alter the cache): further scans and aggregates
   * over the same paths then read no documents at all.
   */
  *scanSelected(
    def: CollectionDef,
    selection: FieldSelection,
    keep: ((part: Document) => boolean) | undefined,
    whole: boolean,
    txn?: TxnState,
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
        if (body !== SKIPPED) yield { id, body: body as Document };
      }
      return;
    }
    const cacheKey = `${def.dbName}\n${selection.signature}`;
    const cached = this.selections.get(cacheKey);
    if (cached?.generation === this.generation) {
      const { ids, parts } = cached;
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i] as Document;
        if (keep && !keep(part)) continue;
        const id = ids.subarray(i * ID_BYTES, (i + 1) * ID_BYTES);
        const body = whole ? this.getWhole(def, id) : part;
        if (body) yield { id, body };
      }
      return;
    }
    // Keeping a selection costs about as much as the scan (its objects outlive the young
    // generation), so a scan keeps one only when the same selection was scanned before with
    // no write in between: reads that repeat. Writes in between leave every scan lean.
    const repeated = this.scannedAt.get(cacheKey) === this.generation;
    if (this.scannedAt.size >= SCANNED_SELECTIONS_MAX) this.scannedAt.clear();
    this.scannedAt.set(cacheKey, this.generation);
    const documents = repeated ? count(this.ctx, def) : Number.POSITIVE_INFINITY;
    if (documents <= SELECTION_CACHE_DOCS_MAX) record = new SelectionRecorder(selection, documents);
    const generation = this.generation;
    for (const { id, body } of this.visit(def, ID_MIN, undefined, read)) {
      record?.addId(id);
      if (body !== SKIPPED) yield { id, body: body as Document };
    }
    const complete = record?.complete(generation);
    if (complete && generation === this.generation) this.keep(cacheKey, complete);
  }

  private getWhole(def: CollectionDef, id: Buffer): Document | undefined {
    const bytes = tree(this.ctx, def.dbName).getBinaryFast(id);
    return bytes === undefined ? undefined : this.ctx.docs.decode<Document>(bytes);
  }

  private keep(key: string, selection: CachedSelection): void {
    this.selections.delete(key);
    this.selections.set(key, selection);
    let docs = 0;
    for (const s of this.selections.values()) docs += s.parts.length;
    // Oldest first, until the cached documents fit the budget again.
    for (const [k, s] of this.selections) {
      if (docs <= SELECTION_CACHE_DOCS_MAX) break;
      this.selections.delete(k);
      docs -= s.parts.length;
    }
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
