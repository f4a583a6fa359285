/**
 * The catalog: what the data file holds besides documents. Node metadata (format, term, the
 * change-log floor, the sub-database counter) and one record per collection with its index
 * definitions and their state. Records are plain data; the Store persists them.
 */

import { dbError } from '../errors/index.js';
import type { IndexState, TermRun } from '../types/index.js';
import {
  INDEX_NAME_CHARS_MAX,
  INDEX_PATHS_MAX,
  type JsonPath,
  normalizeCollectionName,
  parsePath,
} from '../util/index.js';

/**
 * The data-file format this build writes (2: index sub-databases are dupsort; 3: documents
 * are MessagePack records with structures shared across the file; 4: change-log entries in
 * the portable format of change-entry.ts).
 */
export const FORMAT_VERSION = 4;

/**
 * Formats this build opens. A format-3 file is marked 4 on its first writing open: its old
 * change-log entries stay readable (change-entry.ts reads both), and an older build then
 * refuses the file instead of misreading the new entries.
 */
export const FORMAT_VERSIONS_READ: readonly number[] = [3, 4];

/** Node metadata kept under the catalog key `meta`. */
export interface NodeMeta {
  format: number;
  /** Replication term this node is in (starts at 1; change-log.ts sets it, never lower). */
  term: number;
  /** Highest seq ever trimmed from the change log; the log's seqs continue above it. */
  seqFloor: number;
  /**
   * The term of the entry at `seqFloor` (the last one trimmed, or a loaded snapshot's seq):
   * the log's last term once it holds no entry. Absent before anything was trimmed, and in
   * files trimmed before it existed: read as 0, a term no entry carries.
   */
  floorTerm?: number;
  /** The hash-chain link of the entry at `seqFloor` (hex; change-entry.ts), when it had one. */
  floorChain?: string;
  /**
   * The node's term history (change-log.ts): one run per term its entries carry, kept when
   * trims take the entries, so a rejoining node's place is known even below the floor.
   * Absent in files written before it: the log derives it from its entries at open.
   */
  termRuns?: TermRun[];
  /**
   * This node's tag in the terms it makes when promoted (a random number below
   * TERM_TAGS; replication's terms.ts): two promotions that do not see each other make
   * different terms. Drawn at the first promotion; replication draws another when it meets a
   * node with the same tag.
   */
  termTag?: number;
  /**
   * Set while a snapshot load replaces the node's state (resync.ts) and cleared when it
   * finishes: present after a restart, it says the data is partial.
   */
  loading?: SnapshotLoadMark;
  /** Counter behind sub-database names (`c<N>`, `i<N>`); never reused. */
  nextDbId: number;
  /**
   * Grows with every change of collection or index definitions or of document structures,
   * so a reader in another process can tell with one read whether its catalog is current.
   */
  catalogGeneration?: number;
  createdAt: string;
}

/** What a snapshot load in progress records in `meta` (see NodeMeta.loading). */
export interface SnapshotLoadMark {
  /** Tells this load from a later one that started over (a UUID). */
  id: string;
  /** The snapshot's seq: the log continues after it once the load finishes. */
  seq: number;
  /** The leader's term when it took the snapshot. */
  term: number;
  /** The term of the entry at `seq` on the leader. */
  lastTerm: number;
  /** The link of the entry at `seq` on the leader, when it had one. */
  lastChain?: string;
  /** The leader's term history up to `seq`. */
  runs?: TermRun[];
}

export type { IndexState };

/** An index as the catalog stores it. */
export interface IndexDef {
  /** Name as given (case kept); unique per collection case-insensitively. */
  name: string;
  paths: string[];
  unique: boolean;
  multikey: boolean;
  state: IndexState;
  /** Sub-database holding the entries. */
  dbName: string;
  createdAt: string;
}

/** A collection as the catalog stores it. */
export interface CollectionDef {
  /** Canonical (lowercase) name. */
  name: string;
  dbName: string;
  createdAt: string;
  indexes: IndexDef[];
}

/** The collection-name rule lives in util/ so cluster/ shares it without importing storage. */
export { normalizeCollectionName };

/** What a caller asks for when creating an index. */
export interface IndexSpec {
  paths: string[];
  name?: string | undefined;
  unique?: boolean | undefined;
}

/** A validated index spec with parsed paths. */
export interface CheckedIndexSpec {
  name: string;
  paths: JsonPath[];
  unique: boolean;
  multikey: boolean;
}

const INDEX_NAME = /^[A-Za-z0-9._-]+$/;

/** The name an unnamed index gets: `idx_<collection>_<paths>` with other characters as `_`. */
export function autoIndexName(collection: string, paths: string[]): string {
  const raw = `idx_${collection}_${paths.join('_')}`.replace(/[^A-Za-z0-9]/g, '_');
  return raw.slice(0, INDEX_NAME_CHARS_MAX);
}

/** Validates an index spec: paths, name, flags and the one-multikey-path rule. */
export function checkIndexSpec(collection: string, spec: IndexSpec): CheckedIndexSpec {
  if (spec === null || typeof spec !== 'object') throw dbError('ERR_INDEX_INVALID', 'notObject');
  if (!Array.isArray(spec.paths) || spec.paths.length === 0) {
    throw dbError('ERR_INDEX_INVALID', 'noPath');
  }
  if (spec.paths.length > INDEX_PATHS_MAX) {
    throw dbError('ERR_INDEX_INVALID', 'tooManyPaths', {
      limit: INDEX_PATHS_MAX,
      count: spec.paths.length,
    });
  }
  const paths = spec.paths.map((p) => parsePath(p, { allowEach: true }));
  const texts = paths.map((p) => p.text);
  if (new Set(texts).size !== texts.length) throw dbError('ERR_INDEX_INVALID', 'repeatedPath');
  if (paths.some((p) => (p.segments[0] as { name?: string }).name === '_id')) {
    throw dbError('ERR_INDEX_INVALID', 'onId');
  }
  const multikeyPaths = paths.filter((p) => p.multikey).length;
  if (multikeyPaths > 1) {
    throw dbError('ERR_INDEX_INVALID', 'manyEach');
  }
  if (spec.unique !== undefined && typeof spec.unique !== 'boolean') {
    throw dbError('ERR_INDEX_INVALID', 'uniqueNotBoolean');
  }
  const name = spec.name ?? autoIndexName(collection, texts);
  if (typeof name !== 'string' || name.length === 0 || name.length > INDEX_NAME_CHARS_MAX) {
    throw dbError('ERR_INDEX_INVALID', 'nameLength', { limit: INDEX_NAME_CHARS_MAX });
  }
  if (!INDEX_NAME.test(name)) {
    throw dbError('ERR_INDEX_INVALID', 'nameCharacter', { name });
  }
  return { name, paths, unique: spec.unique === true, multikey: multikeyPaths === 1 };
}

/** Finds an index by name, ignoring letter case. */
export function findIndex(def: CollectionDef, name: string): IndexDef | undefined {
  const folded = name.toLowerCase();
  return def.indexes.find((i) => i.name.toLowerCase() === folded);
}
