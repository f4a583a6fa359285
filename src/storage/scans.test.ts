/**
 * The selection cache seen from the store: a scan of a kept selection that is suspended
 * while a batch commits finishes on the documents it began with, and ids it handed out keep
 * their bytes after the kept selection follows inserts and deletes; a selection no scan reads
 * for SELECTION_CACHE_IDLE_MS is dropped at the next write. Real LMDB files.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import {
  parsePath,
  SELECTION_CACHE_BYTES_MAX,
  SELECTION_CACHE_IDLE_MS,
  SELECTIONS_KEPT_MAX,
} from '../util/index.js';
import { FieldSelection } from './codec/index.js';
import { type CollectionDef, Store } from './index.js';

let store: Store;
let cleanup: () => void;

beforeEach(async () => {
  let dir: string;
  ({ dir, cleanup } = makeTempDir());
  store = Store.open(dir);
  await store.write((txn) =>
    txn.insertDocuments(
      't',
      Array.from({ length: 100 }, (_, n) => txn.prepareDocument({ n }, undefined)),
    ),
  );
});

afterEach(async () => {
  await store.close();
  cleanup();
});

const selection = new FieldSelection([parsePath('n')]);

function def(): CollectionDef {
  return store.getCollection('t') as CollectionDef;
}

/** Every `n` of a selected scan, with the scan's ids as hex. */
function scanAll(): { ns: number[]; ids: string[] } {
  const ns: number[] = [];
  const ids: string[] = [];
  for (const { id, body } of store.scanSelected(def(), selection, undefined, false)) {
    ns.push(body.n as number);
    ids.push(id.toString('hex'));
  }
  return { ns, ids };
}

/** Scans twice, so that the second scan keeps its selection. */
function keepSelection(): { ns: number[]; ids: string[] } {
  scanAll();
  return scanAll();
}

const hundred = Array.from({ length: 100 }, (_, n) => n);

describe('a kept selection', () => {
  it('lets a scan suspended across commits finish on the documents it began with', async () => {
    const { ids } = keepSelection();
    const scan = store.scanSelected(def(), selection, undefined, false);
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) {
      const step = scan.next();
      if (step.done) throw new Error('the scan ended early');
      seen.push(step.value.body.n as number);
    }
    const first = Buffer.from(ids[0] as string, 'hex');
    const fifty = Buffer.from(ids[50] as string, 'hex');
    await store.write((txn) => txn.deleteDocument('t', first));
    await store.write((txn) =>
      txn.replaceDocument('t', fifty, txn.prepareDocument({ n: -50 }, undefined)),
    );
    await store.write((txn) =>
      txn.insertDocuments('t', [txn.prepareDocument({ n: 100 }, undefined)]),
    );
    for (const { body } of { [Symbol.iterator]: () => scan }) seen.push(body.n as number);
    expect(seen).toEqual(hundred);
    expect(scanAll().ns).toEqual([...hundred.slice(1, 50), -50, ...hundred.slice(51), 100]);
  });

  it('never changes the bytes of ids a scan handed out', async () => {
    keepSelection();
    const handed = [...store.scanSelected(def(), selection, undefined, false)].map((d) => d.id);
    const before = handed.map((id) => id.toString('hex'));
    // A delete and an insert before every id move the kept ids.
    await store.write((txn) => txn.deleteDocument('t', handed[3] as Buffer));
    await store.write((txn) =>
      txn.insertDocuments('t', [txn.prepareDocument({ n: -1 }, Buffer.alloc(16, 0))]),
    );
    expect(handed.map((id) => id.toString('hex'))).toEqual(before);
    const after = scanAll();
    expect(after.ns).toEqual([-1, ...hundred.filter((n) => n !== 3)]);
    expect(after.ids.slice(1)).toEqual(before.filter((_, i) => i !== 3));
  });
});

describe('the selection cache', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps a selection from its second scan, counts its documents, and follows writes', async () => {
    expect(store.selectionCache()).toEqual({ selections: 0, documents: 0 });
    scanAll();
    expect(store.selectionCache()).toEqual({ selections: 0, documents: 0 });
    scanAll();
    expect(store.selectionCache()).toEqual({ selections: 1, documents: 100 });
    await store.write((txn) =>
      txn.insertDocuments('t', [txn.prepareDocument({ n: 100 }, undefined)]),
    );
    expect(store.selectionCache()).toEqual({ selections: 1, documents: 101 });
  });

  it(`keeps at most ${SELECTIONS_KEPT_MAX} selections, and none past the byte budget`, async () => {
    const scanTwice = (paths: string[]) => {
      const chosen = new FieldSelection(paths.map((p) => parsePath(p)));
      for (let k = 0; k < 2; k++) [...store.scanSelected(def(), chosen, undefined, false)];
    };
    for (let k = 0; k < SELECTIONS_KEPT_MAX + 8; k++) scanTwice(['n', `f${k}`]);
    expect(store.selectionCache().selections).toBe(SELECTIONS_KEPT_MAX);
    // Strings count by their length: 100 documents of 6 MiB each pass 512 MiB, so a scan of
    // that field keeps nothing (counted in documents alone, such scans filled the heap).
    const big = 'x'.repeat(Math.ceil(SELECTION_CACHE_BYTES_MAX / 100 / 2));
    await store.write((txn) =>
      txn.insertDocuments(
        'big',
        Array.from({ length: 100 }, () => txn.prepareDocument({ s: big }, undefined)),
      ),
    );
    const bigDef = store.getCollection('big') as CollectionDef;
    const strings = new FieldSelection([parsePath('s')]);
    const before = store.selectionCache();
    for (let k = 0; k < 2; k++) [...store.scanSelected(bigDef, strings, undefined, false)];
    expect(store.selectionCache()).toEqual(before);
  });

  it('drops a selection no scan has read for the idle time, at the next write', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    keepSelection();
    const write = () =>
      store.write((txn) => txn.insertDocuments('t', [txn.prepareDocument({ n: 1 }, undefined)]));
    vi.setSystemTime(Date.now() + SELECTION_CACHE_IDLE_MS - 1000);
    await write();
    expect(store.selectionCache().selections).toBe(1);
    scanAll(); // a read keeps it alive
    vi.setSystemTime(Date.now() + SELECTION_CACHE_IDLE_MS - 1000);
    await write();
    expect(store.selectionCache().selections).toBe(1);
    vi.setSystemTime(Date.now() + SELECTION_CACHE_IDLE_MS + 1000);
    expect(store.selectionCache().selections).toBe(1);
    await write();
    expect(store.selectionCache()).toEqual({ selections: 0, documents: 0 });
    expect(scanAll().ns).toHaveLength(103);
  });
});
