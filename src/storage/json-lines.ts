/**
 * A stream's rows as NDJSON chunks, written from the stored bytes under a pinned snapshot:
 * each document's JSON text (as `getJson` writes it) and a newline, gathered into chunks of
 * at least NDJSON_CHUNK_BYTES. A whole collection is read with one cursor, its values
 * transcoded where LMDB holds them; listed ids are read one get each. Reads only.
 */

import type { JsonLines } from '../types/index.js';
import { jsonLines, NDJSON_CHUNK_BYTES } from '../util/index.js';
import type { CollectionDef } from './catalog.js';
import type { JsonLineBuffer, JsonProjection } from './codec/index.js';
import type { StoreContext } from './context.js';
import type { ReadSnapshot } from './lmdb-env.js';
import { decodedJson, ID_MIN, tree } from './records.js';

/**
 * Room a chunk starts with: the chunk size and the usual last document past it, so that a
 * chunk is rarely copied to grow (the transcoder grows it when a document needs more).
 */
const CHUNK_ROOM_BYTES = NDJSON_CHUNK_BYTES + 16 * 1024;

/**
 * What a read that failed throws instead of `error`: the Store names the document read (`id`)
 * or, when the cursor failed to step, the one after `after` (damage.ts).
 */
export type DamageAt = (
  error: unknown,
  at: { id: Buffer } | { after: Buffer | undefined },
) => unknown;

/** Which documents of a whole collection, in id order: past the first `skip`, at most `take`. */
export interface LineRange {
  skip: number;
  take: number;
}

/** Gathers lines into chunks. */
class LineChunks {
  private lines: JsonLineBuffer = { bytes: Buffer.allocUnsafe(CHUNK_ROOM_BYTES), length: 0 };
  private rows = 0;

  constructor(
    private readonly ctx: StoreContext,
    private readonly projection: JsonProjection | undefined,
  ) {}

  /** Appends the line of the document stored as `bytes[0, size)` under `id`. */
  add(id: Buffer, bytes: Uint8Array, size: number): void {
    const { ctx, lines, projection } = this;
    this.rows++;
    if (ctx.docs.documentLine(lines, bytes, size, id, projection)) return;
    // A form the transcoder leaves: decoded and stringified, as getJson does.
    const text = `${decodedJson(ctx, id, bytes.subarray(0, size), projection)}\n`;
    const needed = lines.length + Buffer.byteLength(text);
    if (needed > lines.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, CHUNK_ROOM_BYTES));
      lines.bytes.copy(grown, 0, 0, lines.length);
      lines.bytes = grown;
    }
    lines.length += lines.bytes.write(text, lines.length, 'utf8');
  }

  get full(): boolean {
    return this.lines.length >= NDJSON_CHUNK_BYTES;
  }

  get empty(): boolean {
    return this.rows === 0;
  }

  /** The lines gathered so far, as one chunk; the next start in a new buffer. */
  take(): JsonLines {
    const chunk = jsonLines(this.lines.bytes.subarray(0, this.lines.length), this.rows);
    this.lines = { bytes: Buffer.allocUnsafe(CHUNK_ROOM_BYTES), length: 0 };
    this.rows = 0;
    return chunk;
  }
}

/** How many documents the collection holds in the snapshot. */
export function countDocuments(
  ctx: StoreContext,
  snapshot: ReadSnapshot,
  def: CollectionDef,
): number {
  return snapshot.count(tree(ctx, def.dbName), { start: ID_MIN });
}

/** The documents of a collection in id order, within `range`, as NDJSON chunks. */
export function* scanLines(
  ctx: StoreContext,
  snapshot: ReadSnapshot,
  def: CollectionDef,
  projection: JsonProjection | undefined,
  range: LineRange,
  damageAt: DamageAt,
): Generator<JsonLines> {
  if (range.take <= 0) return;
  const { db, visitor } = ctx.handles.scan(def.dbName);
  let bytes: Uint8Array = ID_MIN;
  let size = 0;
  // The visitor only notes where the value is: it is transcoded once its key (the id) is
  // known, before the cursor steps again, while LMDB's buffer still holds it.
  const visit = (value: Uint8Array, valueSize: number) => {
    bytes = value;
    size = valueSize;
    return undefined;
  };
  const options = { start: ID_MIN, offset: range.skip, limit: range.take };
  const entries = snapshot.scan(db, options)[Symbol.iterator]();
  const chunks = new LineChunks(ctx, projection);
  let last: Buffer | undefined;
  try {
    for (;;) {
      // Another scan of the same collection may have stepped in between (scans.ts).
      visitor.visit = visit;
      let step: IteratorResult<{ key: Buffer }>;
      try {
        step = entries.next();
      } catch (error) {
        throw damageAt(error, { after: last });
      }
      if (step.done) break;
      last = step.value.key;
      try {
        chunks.add(last, bytes, size);
      } catch (error) {
        throw damageAt(error, { id: last });
      }
      if (chunks.full) yield chunks.take();
    }
  } finally {
    entries.return?.();
  }
  if (!chunks.empty) yield chunks.take();
}

/** The documents `ids` name, in that order (one no longer there left out), as NDJSON chunks. */
export function* idLines(
  ctx: StoreContext,
  snapshot: ReadSnapshot,
  def: CollectionDef,
  projection: JsonProjection | undefined,
  ids: Iterable<Buffer>,
  damageAt: DamageAt,
): Generator<JsonLines> {
  const db = tree(ctx, def.dbName);
  const chunks = new LineChunks(ctx, projection);
  for (const id of ids) {
    try {
      const bytes = snapshot.getInPlace(db, id);
      if (bytes === undefined) continue;
      chunks.add(id, bytes, bytes.length);
    } catch (error) {
      throw damageAt(error, { id });
    }
    if (chunks.full) yield chunks.take();
  }
  if (!chunks.empty) yield chunks.take();
}
