/**
 * A collection's compression dictionary (docs/adr/0032): a few of its documents' stored bytes
 * laid end to end, which LZ4 copies from when it compresses another. A collection's records
 * share their structures (the keys are in none of them), so what repeats is their values:
 * statuses, codes, names, the fixed parts of dates. A dictionary is fixed when its tree is
 * made: from the first documents written to an empty collection; again from a sample of all
 * of them when the collection reaches DICTIONARY_REMAKE_DOCUMENTS while its dictionary came
 * from fewer than DICTIONARY_SAMPLES documents (or it has none: its first documents were
 * small); and when a compaction rewrites the collection.
 */

import { COMPRESSED_BYTES_MIN } from './lmdb-env.js';

/** Documents a dictionary is made from, spread over what is offered. */
export const DICTIONARY_SAMPLES = 8;

/**
 * The most bytes a dictionary holds. lmdb-js loads the dictionary into LZ4's state for every
 * document it compresses, so each byte costs every write: measured on the bench's orders
 * (ADR 0032), 1 KiB takes 31% off their tree for about 4 µs a document written, 1.5 KiB 36%
 * for 5 µs, none at all 7% for 2.4 µs.
 */
export const DICTIONARY_BYTES_MAX = 1024;

/**
 * The size at which a collection whose dictionary came from fewer than DICTIONARY_SAMPLES
 * documents is rewritten with one from a sample of them (a few ms, once): a collection filled
 * one insert at a time gets its first dictionary from one document.
 */
export const DICTIONARY_REMAKE_DOCUMENTS = 1_000;

/** A dictionary and how many documents it was made from. */
export interface Dictionary {
  bytes: Buffer;
  samples: number;
}

/**
 * The dictionary made from `documents` (stored bytes, in the order given), or undefined when
 * none is large enough to be compressed at all.
 */
export function makeDictionary(documents: readonly Uint8Array[]): Dictionary | undefined {
  // A part of the documents per sample: the first in each part large enough to compress.
  const parts = Math.min(DICTIONARY_SAMPLES, documents.length);
  const chosen: Uint8Array[] = [];
  for (let part = 0; part < parts; part++) {
    const end = Math.floor(((part + 1) * documents.length) / parts);
    for (let i = Math.floor((part * documents.length) / parts); i < end; i++) {
      const document = documents[i] as Uint8Array;
      if (document.length < COMPRESSED_BYTES_MIN) continue;
      chosen.push(document);
      break;
    }
  }
  if (chosen.length === 0) return undefined;
  const joined = Buffer.concat(chosen);
  // LZ4 reads the dictionary in whole words, and reaches back from the document it
  // compresses: the end of the dictionary is what it reaches most cheaply.
  const size = Math.min(joined.length, DICTIONARY_BYTES_MAX) & ~7;
  return { bytes: Buffer.from(joined.subarray(joined.length - size)), samples: chosen.length };
}

/** A dictionary as the catalog stores it: the sample count, then the bytes. */
export function encodeDictionary(dictionary: Dictionary): Buffer {
  return Buffer.concat([Buffer.from([dictionary.samples]), dictionary.bytes]);
}

export function decodeDictionary(stored: Buffer): Dictionary {
  return { samples: stored[0] ?? 0, bytes: stored.subarray(1) };
}
