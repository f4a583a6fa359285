/**
 * Consistency checks of a reopened crash-test file that do not depend on what was
 * acknowledged: every index agrees with the documents (lookups through the index equal full
 * scans, entry counts equal those the documents call for) and the change log is contiguous.
 * Each check returns problems as sentences; none changes the file.
 */

import { isDeepStrictEqual } from 'node:util';
import type { Collection, Database } from '../../src/index.js';
import { briefDoc } from './ack-model.js';
import { CRASH_COLLECTION, CRASH_INDEXES, type CrashDoc, type CrashIndex } from './protocol.js';

function isScalar(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/** The top-level field an index path reads (`tags[*]` reads `tags`). */
function fieldOf(path: string): string {
  return path.replace('[*]', '');
}

/**
 * The value tuples a document contributes to an index, by DESIGN §3: a missing value counts
 * as null; a path holding an array or object is not listed; a multikey path lists each
 * distinct scalar element once.
 */
export function expectedTuples(index: CrashIndex, doc: CrashDoc): unknown[][] {
  if (index.multikey) {
    const elements = doc[fieldOf(index.paths[0] as string)];
    if (!Array.isArray(elements)) return [];
    const distinct = new Map<string, unknown>();
    for (const element of elements)
      if (isScalar(element)) distinct.set(JSON.stringify(element), element);
    return [...distinct.values()].map((value) => [value]);
  }
  const tuple = index.paths.map((path) => doc[fieldOf(path)] ?? null);
  return tuple.every(isScalar) ? [tuple] : [];
}

/** Per index: the entry count the documents call for and, per value tuple, the matching ids. */
export function expectedIndex(
  index: CrashIndex,
  docs: Map<string, CrashDoc>,
): { entries: number; matches: Map<string, { tuple: unknown[]; ids: string[] }> } {
  let entries = 0;
  const matches = new Map<string, { tuple: unknown[]; ids: string[] }>();
  for (const [id, doc] of docs) {
    for (const tuple of expectedTuples(index, doc)) {
      entries += 1;
      const key = JSON.stringify(tuple);
      const match = matches.get(key) ?? { tuple, ids: [] };
      match.ids.push(id);
      matches.set(key, match);
    }
  }
  for (const match of matches.values()) match.ids.sort();
  return { entries, matches };
}

function find(collection: Collection, index: CrashIndex, tuple: unknown[], useIndex: boolean) {
  const options = { useIndex };
  return index.paths.length === 1
    ? collection.findBy(index.paths[0] as string, tuple[0], options)
    : collection.findByTuple(index.paths, tuple, options);
}

function idsOf(documents: Array<Record<string, unknown>>): string[] {
  return documents.map((d) => d._id as string).sort();
}

function listDiff(label: string, got: string[], want: string[]): string {
  const extra = got.filter((id) => !want.includes(id));
  const missing = want.filter((id) => !got.includes(id));
  return `${label} returned ${got.length} documents, expected ${want.length}; extra [${extra.join(', ')}], missing [${missing.join(', ')}]`;
}

/**
 * Every value tuple present in the documents, looked up through the index and by a full scan
 * (`useIndex: false`): both must answer exactly the documents holding it.
 */
function checkLookups(
  collection: Collection,
  index: CrashIndex,
  docs: Map<string, CrashDoc>,
): string[] {
  const problems: string[] = [];
  for (const { tuple, ids } of expectedIndex(index, docs).matches.values()) {
    const where = `${index.name} lookup of ${JSON.stringify(tuple).slice(0, 80)}`;
    const viaIndex = find(collection, index, tuple, true);
    const viaScan = find(collection, index, tuple, false);
    if (viaIndex.index !== index.name)
      problems.push(`${where} used ${viaIndex.index ?? 'a scan'}, not the index`);
    if (viaScan.index !== undefined)
      problems.push(`${where} with useIndex false used ${viaScan.index}`);
    const indexIds = idsOf(viaIndex.documents);
    const scanIds = idsOf(viaScan.documents);
    if (!isDeepStrictEqual(indexIds, ids))
      problems.push(listDiff(`${where} through the index`, indexIds, ids));
    if (!isDeepStrictEqual(scanIds, ids))
      problems.push(listDiff(`${where} by full scan`, scanIds, ids));
  }
  return problems;
}

/** Index definitions, states and entry counts in `db.stats()`, and every lookup. */
export function checkIndexes(db: Database, docs: Map<string, CrashDoc>): string[] {
  const problems: string[] = [];
  const stats = db.stats().collections.find((c) => c.name === CRASH_COLLECTION);
  if (!stats) return [`db.stats() does not list collection ${CRASH_COLLECTION}`];
  if (stats.count !== docs.size) {
    problems.push(`db.stats() counts ${stats.count} documents; a scan finds ${docs.size}`);
  }
  const collection = db.collection(CRASH_COLLECTION);
  if (collection.count() !== docs.size) {
    problems.push(`count() says ${collection.count()} documents; a scan finds ${docs.size}`);
  }
  for (const index of CRASH_INDEXES) {
    const info = stats.indexes.find((i) => i.name === index.name);
    if (!info) {
      problems.push(`index ${index.name} is missing from db.stats()`);
      continue;
    }
    const shape = {
      paths: info.paths,
      unique: info.unique,
      multikey: info.multikey,
      state: info.state,
    };
    const want = {
      paths: index.paths,
      unique: index.unique,
      multikey: index.multikey,
      state: 'ready',
    };
    if (!isDeepStrictEqual(shape, want)) {
      problems.push(
        `index ${index.name} is ${JSON.stringify(shape)}; expected ${JSON.stringify(want)}`,
      );
    }
    const { entries } = expectedIndex(index, docs);
    if (info.entries !== entries) {
      problems.push(
        `index ${index.name} holds ${info.entries} entries; the ${docs.size} documents call for ${entries}` +
          ` (${info.entries > entries ? 'entries point to missing or changed documents' : 'documents miss entries'})`,
      );
    }
    problems.push(...checkLookups(collection, index, docs));
  }
  return problems;
}

/** What the change-log check carries from one cycle to the next. */
export interface ChangeLogState {
  /** Highest seq already verified contiguous. */
  verifiedSeq: number;
  /** Last document operation the log records per id still stored. */
  lastOp: Map<string, 'insert' | 'replace' | 'delete'>;
}

/**
 * The change log since the last verified seq: seqs contiguous and increasing, the newest one
 * equal to `nodeState().lastSeq`, nothing trimmed, one document record per stored change
 * (`changes` = acknowledged plus landed in-flight), and the last entry of each id agreeing
 * with whether it is stored.
 */
export function checkChangeLog(
  db: Database,
  state: ChangeLogState,
  docs: Map<string, CrashDoc>,
  changes: number,
): string[] {
  const problems: string[] = [];
  const touched = new Set<string>();
  let next = state.verifiedSeq + 1;
  let documentEntries = 0;
  for (const entry of db.changesSince(state.verifiedSeq)) {
    if (entry.seq !== next) {
      problems.push(`change log: seq ${entry.seq} follows ${next - 1}; expected ${next}`);
      return problems;
    }
    next += 1;
    if (entry.collection !== CRASH_COLLECTION) continue;
    // An insert entry records every document of one atomic write (a bulk insert is one entry).
    const written =
      entry.op === 'insert'
        ? entry.documents.map((d) => d.id)
        : entry.op === 'replace' || entry.op === 'delete'
          ? [entry.id]
          : [];
    for (const id of written) {
      documentEntries += 1;
      state.lastOp.set(id, entry.op as 'insert' | 'replace' | 'delete');
      touched.add(id);
    }
  }
  const lastSeq = next - 1;
  const node = db.nodeState();
  if (node.lastSeq !== lastSeq)
    problems.push(`change log ends at seq ${lastSeq}; nodeState says ${node.lastSeq}`);
  const log = db.stats().changeLog;
  if (log.firstSeq !== 1 || log.entries !== lastSeq) {
    problems.push(
      `change log holds ${log.entries} entries from seq ${log.firstSeq}; expected 1..${lastSeq}`,
    );
  }
  if (documentEntries !== changes) {
    problems.push(
      `change log records ${documentEntries} document writes this cycle; ${changes} were stored`,
    );
  }
  for (const id of touched) {
    const op = state.lastOp.get(id);
    const stored = docs.get(id);
    if ((op === 'delete') === (stored !== undefined)) {
      problems.push(
        `change log's last entry for ${id} is ${op}, but the file holds ${briefDoc(stored)}`,
      );
    }
    if (op === 'delete') state.lastOp.delete(id);
  }
  for (const id of docs.keys()) {
    if (!state.lastOp.has(id))
      problems.push(`document ${id} is stored but the change log never recorded it`);
  }
  state.verifiedSeq = lastSeq;
  return problems;
}
