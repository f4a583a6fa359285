/**
 * Proves the change-log entry format: an entry's stored bytes read back through the file's
 * document codec, with or without their hash-chain link, and, from another node, without any
 * structures until its documents are read with that node's (plain documents need none); a
 * link depends on the link before it and on every byte of the entry; a newer format version,
 * an unknown op, bytes that are not MessagePack or a malformed link are refused with
 * ERR_CHANGE_INVALID, never skipped.
 */

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CHAIN_START,
  type ChangeEntry,
  chainText,
  decodeDocuments,
  decodeStoredEntry,
  encodeStoredBody,
  encodeStoredEntry,
  linkedEntryBytes,
  linkOf,
  readPeerEntry,
  storedEntryBytes,
  storedEntryHead,
} from './change-entry.js';
import { DocumentCodec, decodeValue, encodeValue } from './codec/index.js';

/** The link after `previous` as its definition reads: SHA-256 of it and the map, cut to 16. */
function nextChain(previous: Uint8Array | undefined, body: Uint8Array): Buffer {
  const sha = createHash('sha256');
  sha.update(previous ?? CHAIN_START);
  sha.update(body);
  return sha.digest().subarray(0, 16);
}

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
  it('are stored with the documents in the file encoding, and read back through it', () => {
    const codec = new DocumentCodec([]);
    const bytes = encodeStoredEntry(insert, (doc) => codec.encode(doc, () => {}));
    expect(codec.structures.length).toBeGreaterThan(0);
    expect(decodeStoredEntry(bytes, (b) => codec.decode(b))).toEqual(insert);
    // From another node: the map at once, its documents once read with that node's codec.
    const peer = readPeerEntry(bytes);
    expect(peer).toMatchObject({ bytes, chain: undefined, entry: { seq: 7, endSeq: 8 } });
    expect(decodeDocuments(peer.entry, (b) => codec.decode(b))).toEqual(insert);
    // Plain documents need no structures at all.
    const plain = readPeerEntry(encodeStoredEntry(insert));
    expect(decodeDocuments(plain.entry, (b) => decodeValue(b))).toEqual(insert);
    // Version 0 (files of format 3, whose entries a leader may still send) is read too.
    const { v: _, ...old } = decodeValue<Record<string, unknown>>(encodeStoredBody(peer.entry));
    const oldEntry = readPeerEntry(encodeValue(old)).entry;
    expect(decodeDocuments(oldEntry, (b) => codec.decode(b))).toEqual(insert);
  });

  it('refuse a newer format version, an unknown op and bytes that are not an entry', () => {
    expect(() => readPeerEntry(encodeValue({ ...insert, v: 2 }))).toThrow(
      expect.objectContaining({
        code: 'ERR_CHANGE_INVALID',
        message: expect.stringMatching(/format version 2/),
      }),
    );
    expect(() => readPeerEntry(encodeValue({ ...insert, v: 1, op: 'truncate' }))).toThrow(
      expect.objectContaining({
        code: 'ERR_CHANGE_INVALID',
        message: expect.stringMatching(/unknown op "truncate"/),
      }),
    );
    expect(() => readPeerEntry(encodeValue({ ...insert, v: 1, seq: -1 }))).toThrow(/no valid seq/);
    // Documents as values are not stored bytes: not an entry of any log.
    expect(() => readPeerEntry(encodeValue({ ...insert, v: 1 }))).toThrow(
      /document that is not stored bytes/,
    );
    for (const bytes of [
      Buffer.from([0xc1]),
      Buffer.from([0xc1, 0xc1, 0xc1]),
      Buffer.from([0x92]),
    ]) {
      expect(() => readPeerEntry(bytes)).toThrow(
        expect.objectContaining({ code: 'ERR_CHANGE_INVALID' }),
      );
    }
  });

  it('carry their hash-chain link in front of the map, read back as hex', () => {
    const body = encodeStoredBody({ ...insert, documents: [] });
    const chain = nextChain(undefined, body);
    expect(chain).toHaveLength(16);
    expect(chain).toEqual(nextChain(CHAIN_START, body));
    const bytes = storedEntryBytes(body, chain);
    expect(linkedEntryBytes(undefined, body)).toEqual(bytes);
    expect(linkOf(bytes)).toEqual(chain);
    expect(bytes[0]).toBe(0xc1);
    expect(storedEntryHead(bytes)).toEqual({ term: 2, chain });
    expect(storedEntryHead(body)).toEqual({ term: 2, chain: undefined });
    const read = decodeStoredEntry(bytes, () => ({}));
    expect(read.chain).toBe(chainText(chain));
    expect(encodeStoredEntry(read)).toEqual(bytes);
    expect(readPeerEntry(bytes).chain).toEqual(chain);
  });

  it('link every byte of the entry and the link before it', () => {
    expect(linkedEntryBytes(Buffer.alloc(16, 7), Buffer.from('map'))).toEqual(
      storedEntryBytes(Buffer.from('map'), nextChain(Buffer.alloc(16, 7), Buffer.from('map'))),
    );
    const body = encodeStoredBody({ ...insert, documents: [] });
    const first = nextChain(undefined, body);
    const changed = Buffer.from(body);
    changed[changed.length - 1] = (changed[changed.length - 1] as number) ^ 1;
    expect(nextChain(undefined, changed)).not.toEqual(first);
    expect(nextChain(first, body)).not.toEqual(first);
    expect(nextChain(first, body)).toEqual(nextChain(Buffer.from(first), Buffer.from(body)));
  });

  it('refuse a link that is not 32 hex digits', () => {
    expect(() => encodeStoredEntry({ ...insert, chain: 'xyz' })).toThrow(
      expect.objectContaining({
        code: 'ERR_CHANGE_INVALID',
        message: expect.stringMatching(/chain link/),
      }),
    );
  });
});
