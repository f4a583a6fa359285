/**
 * The whole-file check behind `docdb verify`, like SQLite's integrity_check: every document
 * decodes; every index entry points at a document holding that value and every document has
 * its entries (unique indexes list one document per complete value); the change log's seqs
 * follow the floor without gap or repeat; each tree's stored count matches what was read. It
 * reads one pinned snapshot, so it sees one committed state beside a writing node, and
 * never writes.
 */

import type { VerifyProblem, VerifyProblemKind, VerifyReport } from '../types/index.js';
import { formatId, VERIFY_PROBLEMS_LISTED_MAX } from '../util/index.js';
import type { CollectionDef, IndexDef, NodeMeta } from './catalog.js';
import { decodeStoredEntry, seqOfKey } from './change-entry.js';
import { decodeValue } from './codec/index.js';
import type { StoreContext } from './context.js';
import { isDamage } from './damage.js';
import type { Document } from './document-check.js';
import { indexValues, liveIndex } from './index-keys.js';
import { type ReadSnapshot, type SubDb, treeStats } from './lmdb-env.js';
import { type PageWalk, walkPages } from './page-walk.js';
import { ID_MIN } from './records.js';

/** Progress of a verify: units are records read (documents, index entries, changes). */
export type VerifyProgress = (done: number, total: number) => void;

/** Records read between two yields to the event loop (a progress bar redraws then). */
const RECORDS_PER_TURN = 2000;

/** What one index should hold: per entry (id then key bytes), the value's facts. */
interface Expected {
  tuple: unknown[];
  unique: boolean;
}

/** The problems found so far, bounded in the list and counted in full. */
class Findings {
  readonly listed: VerifyProblem[] = [];
  readonly counts: Partial<Record<VerifyProblemKind, number>> = {};
  total = 0;

  add(problem: VerifyProblem): void {
    this.total++;
    this.counts[problem.kind] = (this.counts[problem.kind] ?? 0) + 1;
    if (this.listed.length < VERIFY_PROBLEMS_LISTED_MAX) this.listed.push(problem);
  }
}

/** A read that throws on damaged pages records a `pages` problem and reports false. */
function readTree(
  findings: Findings,
  where: Omit<VerifyProblem, 'kind' | 'message'>,
  read: () => void,
) {
  try {
    read();
    return true;
  } catch (error) {
    // Whatever the engine says about a tree it cannot walk, verify reports it and goes on.
    if (!isDamage(error) && !(error instanceof Error)) throw error;
    const what = where.index
      ? `index '${where.index}'`
      : where.collection
        ? `collection '${where.collection}'`
        : 'the change log';
    findings.add({
      ...where,
      kind: 'pages',
      message: `pages of ${what} cannot be read; the rest of it was not checked`,
    });
    return false;
  }
}

class Verifier {
  readonly checked: VerifyReport['checked'] = {
    collections: 0,
    documents: 0,
    indexes: 0,
    indexEntries: 0,
    staleIndexes: 0,
    changes: 0,
  };
  private done = 0;
  private sinceTurn = 0;

  constructor(
    private readonly ctx: StoreContext,
    private readonly pages: PageWalk,
    readonly findings: Findings,
    private snapshot: ReadSnapshot,
    private readonly total: number,
    private readonly progress: VerifyProgress | undefined,
  ) {}

  /** Counts a record read; every RECORDS_PER_TURN, reports progress and yields a turn. */
  async step(): Promise<void> {
    this.done++;
    if (++this.sinceTurn < RECORDS_PER_TURN) return;
    this.sinceTurn = 0;
    this.progress?.(this.done, this.total);
    await new Promise((resolve) => setImmediate(resolve));
  }

  finish(): void {
    this.progress?.(this.total, this.total);
  }

  release(): void {
    try {
      this.snapshot.release();
    } catch {
      // Already aborted by the engine after a damaged read.
    }
  }

  /**
   * A read transaction that met damaged pages refuses every later read (MDB_BAD_TXN): the
   * trees after it are read in a fresh one. Beside a writing node that one may be a later
   * committed state; the counts of each tree still come from one state.
   */
  private renew(): void {
    this.release();
    this.snapshot = this.ctx.handles.pin();
  }

  /** The node record of the catalog, read in the snapshot. */
  meta(): NodeMeta | undefined {
    try {
      const bytes = this.snapshot.get(this.ctx.handles.catalog, Buffer.from('meta'));
      return bytes ? decodeValue<NodeMeta>(bytes) : undefined;
    } catch {
      this.findings.add({ kind: 'catalog', message: "the catalog's node record cannot be read" });
      this.renew();
      return undefined;
    }
  }

  async collection(def: CollectionDef): Promise<void> {
    this.checked.collections++;
    const db = this.damaged(def.dbName)
      ? undefined
      : this.tree(def.dbName, { collection: def.name });
    const ready = def.indexes.filter((i) => i.state === 'ready');
    this.checked.staleIndexes += def.indexes.length - ready.length;
    const live = ready.map((index) => liveIndex(index));
    const expected = ready.map(() => new Map<string, Expected>());
    const ids = new Set<string>();
    let read = 0;
    const complete =
      db !== undefined &&
      (await this.walk(db, { start: ID_MIN }, { collection: def.name }, ({ key, value }) => {
        read++;
        const idText = key.toString('latin1');
        ids.add(idText);
        let body: Document;
        try {
          body = this.ctx.docs.decode<Document>(value);
        } catch {
          this.findings.add({
            kind: 'document',
            collection: def.name,
            id: formatId(key),
            message: `document ${formatId(key)} of collection '${def.name}' cannot be decoded`,
          });
          return;
        }
        live.forEach((index, i) => {
          for (const v of indexValues(index, body)) {
            const map = expected[i] as Map<string, Expected>;
            map.set(idText + v.bytes.toString('latin1'), {
              tuple: v.tuple,
              unique: index.def.unique && !v.hasNull && !v.truncated,
            });
          }
        });
      }));
    this.checked.documents += read;
    if (db && complete) this.count(db, read, { collection: def.name }, 'documents');
    for (let i = 0; i < ready.length; i++) {
      await this.index(
        def,
        ready[i] as IndexDef,
        expected[i] as Map<string, Expected>,
        ids,
        complete,
      );
    }
  }

  private async index(
    def: CollectionDef,
    index: IndexDef,
    expected: Map<string, Expected>,
    ids: Set<string>,
    documentsComplete: boolean,
  ): Promise<void> {
    this.checked.indexes++;
    const where = { collection: def.name, index: index.name };
    if (this.damaged(index.dbName)) return;
    const db = this.tree(index.dbName, where);
    if (!db) return;
    let read = 0;
    // The ids listed under one key so far: a unique index may list one per complete value.
    let group: { key: string; ids: number; unique: boolean; tuple: unknown[] } | undefined;
    const named = `index '${index.name}' of collection '${def.name}'`;
    const closeGroup = () => {
      if (!group || group.ids < 2 || !group.unique) return;
      this.findings.add({
        kind: 'unique',
        ...where,
        message: `unique ${named} lists ${group.ids} documents under ${JSON.stringify(group.tuple)}`,
      });
    };
    const complete = await this.walk(db, {}, where, ({ key, value: id }) => {
      read++;
      const idText = id.toString('latin1');
      const keyText = key.toString('latin1');
      if (group?.key !== keyText) {
        closeGroup();
        group = { key: keyText, ids: 0, unique: false, tuple: [] };
      }
      group.ids++;
      const wanted = expected.get(idText + keyText);
      if (wanted) {
        expected.delete(idText + keyText);
        if (wanted.unique) group = { ...group, unique: true, tuple: wanted.tuple };
        return;
      }
      // A document not read (its pages are damaged, reported) may well hold the value.
      if (!documentsComplete && !ids.has(idText)) return;
      const why = ids.has(idText) ? 'which does not hold that value' : 'which does not exist';
      this.findings.add({
        kind: 'index-extra',
        ...where,
        id: formatId(id),
        message: `${named} lists document ${formatId(id)} under key ${key.toString('hex').slice(0, 48)}, ${why}`,
      });
    });
    closeGroup();
    this.checked.indexEntries += read;
    if (!complete) return;
    this.count(db, read, where, 'entries');
    // What is left was never listed: only meaningful when every document was read.
    if (!documentsComplete) return;
    for (const [text, value] of expected) {
      const id = formatId(Buffer.from(text.slice(0, 16), 'latin1'));
      this.findings.add({
        kind: 'index-missing',
        ...where,
        id,
        message: `document ${id} of collection '${def.name}' has no entry in index '${index.name}' for ${JSON.stringify(value.tuple)}`,
      });
    }
  }

  /** The change log: entries decode, seqs run from the floor without gap or repeat. */
  async changes(meta: NodeMeta | undefined): Promise<void> {
    if (this.damaged('changes')) return;
    const floor = meta?.seqFloor ?? 0;
    let expectedSeq = floor + 1;
    let read = 0;
    const complete = await this.walk(this.ctx.handles.changes, {}, {}, ({ key, value }) => {
      read++;
      const seq = seqOfKey(key);
      // A snapshot load in progress rewrites the log: its floor moves when it finishes.
      if (seq !== expectedSeq && !meta?.loading) {
        const what = seq < expectedSeq ? 'repeats or goes back' : `skips ${expectedSeq}`;
        this.findings.add({
          kind: 'change-log',
          seq,
          message: `the change log ${what}: seq ${seq} follows ${expectedSeq - 1} (floor ${floor})`,
        });
      }
      expectedSeq = seq + 1;
      try {
        const entry = decodeStoredEntry(value, (bytes) => this.ctx.docs.decode<Document>(bytes));
        if (entry.seq !== seq) {
          this.findings.add({
            kind: 'change-log',
            seq,
            message: `the change-log entry stored at seq ${seq} says it is seq ${entry.seq}`,
          });
        }
      } catch {
        this.findings.add({
          kind: 'change-log',
          seq,
          message: `the change-log entry at seq ${seq} cannot be decoded`,
        });
      }
    });
    this.checked.changes = read;
    if (complete) this.count(this.ctx.handles.changes, read, {}, 'changes');
  }

  /** True when the page walk found the tree damaged: LMDB must not read it (it may crash). */
  private damaged(tree: string): boolean {
    return this.pages.damagedTrees.has(tree);
  }

  /** Steps through a tree from `start`; false when damaged pages stopped it (recorded). */
  private async walk(
    db: SubDb,
    start: { start?: Buffer },
    where: Omit<VerifyProblem, 'kind' | 'message'>,
    visit: (entry: { key: Buffer; value: Buffer }) => void,
  ): Promise<boolean> {
    let entries: Iterator<{ key: Buffer; value: Buffer }> | undefined;
    const opened = readTree(this.findings, where, () => {
      entries = this.snapshot.range(db, start)[Symbol.iterator]();
    });
    for (;;) {
      let step: IteratorResult<{ key: Buffer; value: Buffer }> | undefined;
      const ok =
        opened &&
        readTree(this.findings, where, () => {
          step = entries?.next();
        });
      if (!ok || !step) {
        this.renew();
        return false;
      }
      if (step.done) return true;
      visit(step.value);
      await this.step();
    }
  }

  private count(
    db: SubDb,
    read: number,
    where: Omit<VerifyProblem, 'kind' | 'message'>,
    unit: string,
  ): void {
    let stored: number;
    try {
      stored = treeStats(db).entries;
    } catch {
      return;
    }
    if (stored === read) return;
    const what = where.index
      ? `index '${where.index}' of collection '${where.collection}'`
      : where.collection
        ? `collection '${where.collection}'`
        : 'the change log';
    this.findings.add({
      kind: 'count',
      ...where,
      message: `${what} counts ${stored} ${unit} but ${read} were read`,
    });
  }

  /** A collection or index tree, or undefined (recorded) when the catalog names a missing one. */
  private tree(name: string, where: Omit<VerifyProblem, 'kind' | 'message'>): SubDb | undefined {
    try {
      return this.ctx.handles.get(name);
    } catch {
      this.findings.add({
        ...where,
        kind: 'catalog',
        message: `the catalog names tree ${name} for ${where.index ? `index '${where.index}'` : `collection '${where.collection}'`}, but it cannot be opened`,
      });
      return undefined;
    }
  }
}

/** Total records to read: for the progress bar only (damaged pages may make it wrong). */
function plannedRecords(ctx: StoreContext, pages: PageWalk): number {
  let total = 0;
  const add = (name: string) => {
    if (pages.damagedTrees.has(name)) return;
    try {
      total += treeStats(ctx.handles.get(name)).entries;
    } catch {
      // A tree that cannot be read is reported by the check itself.
    }
  };
  for (const def of ctx.catalog.all().values()) {
    add(def.dbName);
    for (const index of def.indexes) if (index.state === 'ready') add(index.dbName);
  }
  if (!pages.damagedTrees.has('changes')) {
    try {
      total += treeStats(ctx.handles.changes).entries;
    } catch {
      // Reported by the check.
    }
  }
  return total;
}

/**
 * Checks the whole file under one pinned snapshot (see the file comment). Undefined when the
 * catalog in the snapshot is not the one the Store loaded (a node changed it meanwhile): the
 * caller reloads and tries again.
 */
export async function verifyFile(
  ctx: StoreContext,
  progress?: VerifyProgress,
): Promise<VerifyReport | undefined> {
  // The structure first, with plain file reads: LMDB then reads only trees that passed.
  const pages = walkPages(ctx.file);
  const findings = new Findings();
  for (const fault of pages.faults) findings.add(pageProblem(ctx, fault.tree, fault.message));
  if (pages.mainDamaged) return report(ctx, findings, emptyChecked());
  const total = plannedRecords(ctx, pages);
  // Every handle is opened before the snapshot is pinned (LMDB's rule, see snapshot.ts).
  const verifier = new Verifier(ctx, pages, findings, ctx.handles.pin(), total, progress);
  try {
    const meta = verifier.meta();
    const generation = (meta?.catalogGeneration ?? 0) === (ctx.catalog.meta.catalogGeneration ?? 0);
    if (meta && !generation) return undefined;
    for (const def of ctx.catalog.all().values()) await verifier.collection(def);
    await verifier.changes(meta);
    verifier.finish();
  } finally {
    verifier.release();
  }
  return report(ctx, findings, verifier.checked);
}

function emptyChecked(): VerifyReport['checked'] {
  return { collections: 0, documents: 0, indexes: 0, indexEntries: 0, staleIndexes: 0, changes: 0 };
}

function report(
  ctx: StoreContext,
  findings: Findings,
  checked: VerifyReport['checked'],
): VerifyReport {
  return {
    file: ctx.file,
    ok: findings.total === 0,
    checked,
    problemCounts: findings.counts,
    problems: findings.listed,
    problemCount: findings.total,
  };
}

/** A structural fault as a problem naming what the tree holds. */
function pageProblem(ctx: StoreContext, tree: string, fault: string): VerifyProblem {
  for (const def of ctx.catalog.all().values()) {
    if (def.dbName === tree) {
      return {
        kind: 'pages',
        collection: def.name,
        message: `pages of collection '${def.name}' are damaged (${fault}); its documents were not read`,
      };
    }
    const index = def.indexes.find((i) => i.dbName === tree);
    if (index) {
      return {
        kind: 'pages',
        collection: def.name,
        index: index.name,
        message: `pages of index '${index.name}' of collection '${def.name}' are damaged (${fault}); its entries were not read`,
      };
    }
  }
  const what =
    tree === 'changes'
      ? 'the change log'
      : tree === 'catalog'
        ? 'the catalog'
        : tree
          ? `tree ${tree}`
          : 'the list of trees';
  return { kind: 'pages', message: `pages of ${what} are damaged (${fault})` };
}
