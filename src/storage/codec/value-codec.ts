/**
 * The stored form of documents, change-log entries and catalog records: MessagePack through
 * msgpackr, plain maps without shared structures. Shared structures are avoided on purpose:
 * a structure recorded inside an aborted child transaction stays in the encoder's memory but
 * not on disk, and documents written with it later cannot be decoded after a restart
 * (docs/adr/0001-storage-on-lmdb.md). This file is msgpackr's only importer.
 */

import { Packr } from 'msgpackr';

const packr = new Packr({ useRecords: false, mapsAsObjects: true, int64AsType: 'number' });

/** Encodes a JSON-like value. */
export function encodeValue(value: unknown): Buffer {
  return packr.pack(value);
}

/** Decodes bytes written by encodeValue. */
export function decodeValue<T = unknown>(bytes: Uint8Array): T {
  return packr.unpack(bytes) as T;
}
