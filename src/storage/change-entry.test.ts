/**
 * Proves the change-log entry format: an entry's portable bytes read back as written, with
 * nothing but a MessagePack decoder (no structures of any file), and its stored bytes read
 * back through the file's document codec, with or without their hash-chain link; a link
 * depends on the link before it and on every byte of the entry; a newer format version, an
 * unknown op or a malformed link is refused with ERR_CHANGE_INVALID, never skipped.
 */

import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import {
  type ChangeEntry,
  decodeEntry,
  CHAIN_START,
  chainText,
  decodeStoredEntry,
  encodeEntry,
  encodeStoredBody,
  nextChain,
  storedEntryBytes,
  storedEntryHead,
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
    const bytes = storedEntryBytes(encodeStoredBody({ ...insert, documents: stored }), undefined);
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

  it('carry their hash-chain link in front of the map, and in the portable form as hex', () => {
    const body = encodeStoredBody({ ...insert, documents: [] });
    const chain = nextChain(undefined, body);
    expect(chain).toHaveLength(16);
    expect(chain).toEqual(nextChain(CHAIN_START, body));
    const bytes = storedEntryBytes(body, chain);
    expect(bytes[0]).toBe(0xc1);
    expect(storedEntryHead(bytes)).toEqual({ term: 2, chain });
    expect(storedEntryHead(body)).toEqual({ term: 2, chain: undefined });
    const read = decodeStoredEntry(bytes, () => ({}));
    expect(read.chain).toBe(chainText(chain));
    expect(decodeEntry(encodeEntry(read))).toEqual(read);
  });

  it('link every byte of the entry and the link before it', () => {
    const body = encodeStoredBody({ ...insert, documents: [] });
    const first = nextChain(undefined, body);
    const changed = Buffer.from(body);
    changed[changed.length - 1] = (changed[changed.length - 1] as number) ^ 1;
    expect(nextChain(undefined, changed)).not.toEqual(first);
    expect(nextChain(first, body)).not.toEqual(first);
    expect(nextChain(first, body)).toEqual(nextChain(Buffer.from(first), Buffer.from(body)));
  });

  it('refuse a link that is not 32 hex digits', () => {
    expect(() => decodeEntry(encodeEntry({ ...insert, chain: 'xyz' }))).toThrow(
      expect.objectContaining({
        code: 'ERR_CHANGE_INVALID',
        message: expect.stringMatching(/chain link/),
      }),
    );
  });
});
