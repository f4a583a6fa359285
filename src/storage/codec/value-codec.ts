/**
 * The stored forms of values, and msgpackr's only importer.
 *
 * - Catalog records and change-log entries: plain MessagePack maps (`encodeValue`).
 * - Documents: MessagePack records whose structures (key lists) are shared across the file
 *   (`DocumentCodec`): about half the size of plain maps and four times faster to decode.
 *
 * lmdb-js's own shared structures are not used: a structure recorded inside a child
 * transaction that rolls back stays in its encoder's memory but not on disk, and documents
 * written with it later cannot be decoded after a restart (docs/adr/0001). Here the Store
 * persists every new structure in the same transaction as the write that needs it (or in its
 * own commit outside a write), and a rollback rebuilds the encoder from what survived.
 */

import { Packr } from 'msgpackr';
import { assert, type DbError, dbError } from '../../errors/index.js';
import { SHARED_STRUCTURES_MAX } from '../../util/index.js';
import { type JsonLineBuffer, type JsonProjection, JsonTranscoder } from './json-transcode.js';
import { type FieldSelection, PartialReader, type Structure } from './partial-decode.js';

const plain = new Packr({ useRecords: false, mapsAsObjects: true, int64AsType: 'number' });

/** Encodes a JSON-like value as plain MessagePack. */
/**
 * Bytes of stored records this process has decoded whole, counted up: what a statement's
 * heap watch (sql/executor/budget.ts) looks at besides its rows, so 256 rows of 16 MiB
 * documents are not read between two looks at the heap.
 */
export const decodedBytes = { total: 0 };

export function encodeValue(value: unknown): Buffer {
  return plain.pack(value);
}

/**
 * Stored bytes that do not decode: ERR_STORAGE_CORRUPT without details, which the Store
 * completes with what was read (storage/damage.ts). msgpackr's words stay the cause.
 */
function undecodable(cause: unknown): DbError {
  const error = dbError('ERR_STORAGE_CORRUPT', 'recordUndecodable');
  error.cause = cause;
  return error;
}

/** Runs one decode, turning any failure of the decoder into `undecodable`. */
function decoding<T>(decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    throw undecodable(error);
  }
}

/** Decodes bytes written by encodeValue. */
export function decodeValue<T = unknown>(bytes: Uint8Array): T {
  return decoding(() => plain.unpack(bytes) as T);
}

export type { Structure };

/** Encodes and decodes documents with structures shared across one data file. */
export class DocumentCodec {
  private packr: Packr;
  private list: Structure[];
  private readonly partial = new PartialReader(
    () => this.list,
    (bytes) => this.packr.unpack(bytes),
  );
  private readonly transcoder = new JsonTranscoder(
    () => this.list,
    (bytes) => this.packr.unpack(bytes),
  );

  /**
   * Whoever encodes now stores the whole structure list when encoding adds one (see
   * `encode`); undefined between encodes.
   */
  private persist: ((structures: Structure[]) => void) | undefined;

  /** `structures` are the ones persisted in the file. */
  constructor(structures: Structure[]) {
    this.list = structures.map((s) => [...s]);
    this.packr = this.makePackr();
  }

  private makePackr(): Packr {
    // Structures load through getStructures, msgpackr's own path, which also marks ids past
    // 31 as two-byte ids; passing them as `structures` skips that and misreads such records.
    return new Packr({
      getStructures: () => this.list.map((s) => [...s]),
      maxSharedStructures: SHARED_STRUCTURES_MAX,
      mapsAsObjects: true,
      int64AsType: 'number',
      saveStructures: (structures: Structure[] & { sharedLength?: number }) => {
        const shared = structures.sharedLength ?? structures.length;
        this.list = structures.slice(0, shared).map((s) => [...s]);
        assert(this.persist, 'a document structure was added outside encode()');
        this.persist(this.list);
        return true;
      },
    } as ConstructorParameters<typeof Packr>[0]);
  }

  /** The shared structures now, in id order (read-only: the codec's own list). */
  get structures(): readonly Structure[] {
    return this.list;
  }

  /** How many shared structures exist now (a mark to truncate back to). */
  get structureCount(): number {
    return this.list.length;
  }

  /**
   * Encodes a document. When it needs a new shared structure, `persist` is called with the
   * whole list before the bytes are returned: the caller stores it in the write that stores
   * the document. If `persist` throws (a
   * read-only file), the structure is forgotten and the error raised.
   */
  encode(document: unknown, persist: (structures: Structure[]) => void): Buffer {
    const before = this.list.length;
    this.persist = persist;
    try {
      return this.packr.pack(document);
    } catch (error) {
      if (this.list.length !== before) this.truncate(before);
      throw error;
    } finally {
      this.persist = undefined;
    }
  }

  decode<T = unknown>(bytes: Uint8Array): T {
    // No `decoding` closure: every document a query returns is decoded here.
    decodedBytes.total += bytes.length;
    try {
      return this.packr.unpack(bytes) as T;
    } catch (error) {
      throw undecodable(error);
    }
  }

  /**
   * The values at the selected paths of the document in `bytes[0, size)`, as a sparse copy
   * (`valueAt` answers each selected path as on the whole document). `bytes` may be a view
   * that is only valid during the call: nothing returned refers to it.
   */
  decodeSelected<T = unknown>(bytes: Uint8Array, size: number, selection: FieldSelection): T {
    return decoding(
      () =>
        (this.partial.read(bytes, size, selection) ??
          this.packr.unpack(bytes.subarray(0, size))) as T,
    );
  }

  /**
   * `JSON.stringify({ _id: id, ...document })` of the document in `bytes[0, size)` (or of
   * its projection), written from the bytes without decoding them; undefined when they hold
   * a form the transcoder leaves to the whole decoder (the caller decodes and stringifies).
   */
  documentJson(
    bytes: Uint8Array,
    size: number,
    id: string,
    projection?: JsonProjection,
  ): string | undefined {
    try {
      return this.transcoder.document(bytes, size, id, projection);
    } catch (error) {
      throw undecodable(error);
    }
  }

  /**
   * Appends the JSON text `documentJson` writes and a newline to `lines`, the id given as its
   * 16 stored bytes; false, appending nothing, where `documentJson` answers undefined.
   */
  documentLine(
    lines: JsonLineBuffer,
    bytes: Uint8Array,
    size: number,
    id: Uint8Array,
    projection?: JsonProjection,
  ): boolean {
    try {
      return this.transcoder.line(lines, bytes, size, id, projection);
    } catch (error) {
      throw undecodable(error);
    }
  }

  /** Forgets structures added after `count`: the write that added them rolled back. */
  truncate(count: number): void {
    if (count >= this.list.length) return;
    this.list = this.list.slice(0, count);
    this.packr = this.makePackr();
  }

  /** Replaces every structure (the file was re-read). */
  reset(structures: Structure[]): void {
    this.list = structures.map((s) => [...s]);
    this.packr = this.makePackr();
  }
}
