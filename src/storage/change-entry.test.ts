/**
 * Proves the change-log entry format: an entry's portable bytes read back as written, with
 * nothing but a MessagePack decoder (no structures of any file), and its stored bytes read
 * back through the file's document codec; a newer format version or an unknown op is refused
 * with ERR_CHANGE_INVALID, never skipped.
 */

import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import {
  type ChangeEntry,
  decodeEntry,
  decodeStoredEntry,
  encodeEntry,
  encodeStoredEntry,
} from './change-entry.js';
import { DocumentCodec, encodeValue } from './codec/index.js';

const insert: Extract<ChangeEntry, { op: 'insert' }> = {
  op: 'insert',
  collection: 'orders',
  documents: [
    {
      id: '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f',
      doc: { pnr: 'A', n: 1, nested: { x: [1, 'y'] } },
    },
    { id: '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e30', doc: { pnr: 'B', n: 2.5, nested: { x: [] } } },
  ],
  seq: 7,
  term: 2,
  atMs: 1_700_000_000_000,
  endSeq: 8,
};

describe('change-log entries', () => {
  it('read back as written, by any MessagePack reader', () => {
    const bytes = encodeEntry(insert);
    expect(decodeEntry(bytes)).toEqual(insert);
    expect(new Packr({ mapsAsObjects: true }).unpack(bytes)).toEqual({ v: 1, ...insert });
  });

  it('are stored with the documents in the file encoding, and read back through it', () => {
    const codec = new DocumentCodec([]);
    const stored = insert.documents.map((d) => ({ id: d.id, doc: codec.encode(d.doc, () => {}) }));
    const bytes = encodeStoredEntry({ ...insert, documents: stored });
    expect(decodeStoredEntry(bytes, (b) => codec.decode(b))).toEqual(insert);
    // Version 0 exists only stored (format-3 files): the portable reader refuses it.
    expect(() => decodeEntry(encodeValue({ ...insert }))).toThrow(/format version 0/);
  });

  it('refuse a newer format version and an unknown op', () => {
    expect(() => decodeEntry(encodeValue({ ...insert, v: 2 }))).toThrow(
      expect.objectContaining({
        code: 'ERR_CHANGE_INVALID',
        message: expect.stringMatching(/format version 2/),
      }),
    );
    expect(() => decodeEntry(encodeValue({ ...insert, v: 1, op: 'truncate' }))).toThrow(
      expect.objectContaining({
        code: 'ERR_CHANGE_INVALID',
        message: expect.stringMatching(/unknown op "truncate"/),
      }),
    );
    expect(() => decodeEntry(encodeValue({ ...insert, v: 1, seq: -1 }))).toThrow(/no valid seq/);
  });
});
