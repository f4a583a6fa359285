/**
 * Proves the key property of indexes (issue 2): for random documents and random equality,
 * range and tuple predicates, a find through an index returns exactly the documents a full
 * collection scan selects, and both agree with an independent model of DESIGN §4's rules.
 * It holds for single, multikey, composite, nested and unique indexes, built over existing
 * data or maintained through inserts, replaces and deletes, for keys truncated past
 * KEY_VALUE_BYTES_MAX, and while indexes are stale (never used) until rebuilt.
 * Real LMDB files in a temp dir; one database, a fresh collection per property run.
 */

import { inspect } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Collection,
  type Database,
  type Document,
  type FindResult,
  isDbError,
  open,
  type RangeBounds,
} from '../../src/index.js';
import { makeTempDir } from '../support/temp-dir.js';

let temp: ReturnType<typeof makeTempDir> | undefined;
let db: Database;
let collectionSeq = 0;

beforeAll(async () => {
  temp = makeTempDir('docdb-');
  db = await open(temp.dir);
});

afterAll(async () => {
  await db?.close();
  temp?.cleanup();
});

/** Runs `body` on a fresh collection and drops it afterwards (a file holds 256 at most). */
async function withCollection(body: (c: Collection) => Promise<void>): Promise<void> {
  const c = db.collection(`prop-${++collectionSeq}`);
  try {
    await body(c);
  } finally {
    await c.drop();
  }
}

// ---- the indexes under test ------------------------------------------------------------

const INDEXES = [
  { name: 'by_n', paths: ['n'] },
  { name: 'by_s', paths: ['s'] },
  { name: 'by_tags', paths: ['tags[*]'] },
  { name: 'by_item_k', paths: ['items[*].k'] },
  { name: 'by_s_n', paths: ['s', 'n'] },
  { name: 'by_a_b', paths: ['a.b'] },
];

/** The index a ready set of INDEXES uses for a find on these paths (none: a scan). */
const INDEX_FOR: Record<string, string> = {
  n: 'by_n',
  s: 'by_s',
  'tags[*]': 'by_tags',
  'items[*].k': 'by_item_k',
  'a.b': 'by_a_b',
  's,n': 'by_s_n',
};

async function createIndexes(c: Collection): Promise<void> {
  for (const spec of INDEXES) await c.createIndex(spec);
}

// ---- documents from a small domain, so that predicates often match --------------------

const smallInt = fc.integer({ min: -2, max: 4 });
const oddNumber = fc.constantFrom(0.5, -1.5, 2.5, -0, 1e-9, 3.0000000000000004);
const smallString = fc.constantFrom(
  '',
  'a',
  'b',
  'ab',
  'B',
  '3',
  '5',
  'a\u0000',
  'é',
  '😀',
  '\uffff',
);
const nonScalar = fc.constantFrom<unknown>([], [1], ['a', 3], {}, { x: 1 });

const scalar: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: smallInt },
  { weight: 1, arbitrary: oddNumber },
  { weight: 3, arbitrary: smallString },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.boolean() },
);

/** A field value: mostly scalars, now and then an array or object (not indexable). */
const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: scalar },
  { weight: 1, arbitrary: nonScalar },
);

const sValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.string({ unit: fc.constantFrom('a', 'b', 'B', '\u0000', '😀'), maxLength: 3 }),
  },
  { weight: 2, arbitrary: smallInt },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
  { weight: 1, arbitrary: nonScalar },
);

const tagsValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.array(fieldValue, { maxLength: 4 }) },
  { weight: 1, arbitrary: scalar },
  { weight: 1, arbitrary: fc.constant({ 0: 'a' }) },
);

const itemValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ k: fieldValue, j: scalar }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: scalar },
  { weight: 1, arbitrary: fc.constant([{ k: 1 }]) },
);

const itemsValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.array(itemValue, { maxLength: 3 }) },
  { weight: 1, arbitrary: scalar },
  { weight: 1, arbitrary: fc.constant({ k: 1 }) },
);

const aValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ b: fieldValue, c: scalar }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: scalar },
  { weight: 1, arbitrary: fc.constant([{ b: 1 }]) },
);

const docArb: fc.Arbitrary<Document> = fc.record(
  { n: fieldValue, s: sValue, tags: tagsValue, items: itemsValue, a: aValue },
  { requiredKeys: [] },
);

const docsArb = fc.array(docArb, { maxLength: 30 });

// ---- predicates ------------------------------------------------------------------------

type Query =
  | { kind: 'by'; path: string; value: unknown }
  | { kind: 'range'; path: string; bounds: RangeBounds }
  | { kind: 'tuple'; paths: string[]; values: unknown[] };

/** Indexed paths, plus positional paths that no index covers (always a scan). */
const queryPath = fc.constantFrom(
  'n',
  's',
  'tags[*]',
  'items[*].k',
  'a.b',
  'tags[0]',
  'items[1].k',
);

/** Predicate values: the document domain plus mismatched types and missing (undefined). */
const queryValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 2, arbitrary: sValue },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>('5', 5, '3', 3, null, true, false, -0, undefined),
  },
  { weight: 1, arbitrary: nonScalar },
);

const bound: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.oneof(smallInt, oddNumber) },
  { weight: 4, arbitrary: smallString },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);

const boundsArb: fc.Arbitrary<RangeBounds> = fc.oneof(
  // At least one bound: a range find without any is an ERR_BAD_ARGUMENT (tested below).
  fc
    .record({ gt: bound, gte: bound, lt: bound, lte: bound }, { requiredKeys: [] })
    .filter((b) => Object.keys(b).length > 0),
  // Same-type pairs make non-empty ranges common.
  fc.tuple(smallInt, smallInt).map(([lo, hi]) => ({ gte: lo, lt: hi })),
  fc.tuple(smallString, smallString).map(([lo, hi]) => ({ gt: lo, lte: hi })),
  fc.boolean().map((b) => ({ gte: b })),
);

const queryArb: fc.Arbitrary<Query> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('by' as const), path: queryPath, value: queryValue }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('range' as const),
      path: queryPath,
      bounds: boundsArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        kind: fc.constant('tuple' as const),
        paths: fc.constantFrom<string[]>(['s', 'n'], ['s'], ['n', 's'], ['s', 'a.b']),
        values: fc.tuple(fc.oneof(sValue, queryValue), queryValue),
      })
      .map((q) => ({ ...q, values: q.values.slice(0, q.paths.length) })),
  },
);

const queriesArb = fc.array(queryArb, { minLength: 10, maxLength: 25 });

// ---- an independent model of the matching rules (DESIGN §4) -----------------------------

type Model = Map<string, Document>;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function field(v: unknown, name: string): unknown {
  return isObject(v) && Object.hasOwn(v, name) ? v[name] : undefined;
}

/** The values a path offers for matching; a missing single value counts as null. */
function modelCandidates(doc: Document, p: string): unknown[] {
  const tags = field(doc, 'tags');
  const items = field(doc, 'items');
  switch (p) {
    case 'n':
    case 's':
      return [field(doc, p) ?? null];
    case 'a.b':
      return [field(field(doc, 'a'), 'b') ?? null];
    case 'tags[0]':
      return [Array.isArray(tags) ? (tags[0] ?? null) : null];
    case 'items[1].k':
      return [Array.isArray(items) ? (field(items[1], 'k') ?? null) : null];
    case 'tags[*]':
      return Array.isArray(tags) ? tags : [];
    case 'items[*].k':
      return Array.isArray(items)
        ? items.filter((e) => isObject(e) && Object.hasOwn(e, 'k')).map((e) => field(e, 'k'))
        : [];
    default:
      throw new Error(`no model for path ${p}`);
  }
}

function isScalarValue(v: unknown): boolean {
  return v === null || ['boolean', 'number', 'string'].includes(typeof v);
}

/** Equality: same type and value (1 = 1.0, -0 = 0); null (or missing) matches null. */
function modelEqual(candidate: unknown, value: unknown): boolean {
  const target = value === undefined ? null : value;
  return isScalarValue(candidate) && candidate === target;
}

function codePoints(s: string): number[] {
  return [...s].map((c) => c.codePointAt(0) as number);
}

function modelCompare(a: boolean | number | string, b: boolean | number | string): number {
  if (typeof a === 'string') {
    const x = codePoints(a);
    const y = codePoints(b as string);
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    }
    return x.length - y.length;
  }
  return Number(a) - Number(b);
}

/**
 * Range: never null; each bound must be of the candidate's type and hold. A range with no
 * bound at all selects nothing (lookup.ts: "at least one should be given").
 */
function modelInRange(candidate: unknown, bounds: RangeBounds): boolean {
  if (candidate === null || !isScalarValue(candidate)) return false;
  if ([bounds.gt, bounds.gte, bounds.lt, bounds.lte].every((b) => b === undefined)) return false;
  const c = candidate as boolean | number | string;
  const tests: Array<[unknown, (d: number) => boolean]> = [
    [bounds.gt, (d) => d > 0],
    [bounds.gte, (d) => d >= 0],
    [bounds.lt, (d) => d < 0],
    [bounds.lte, (d) => d <= 0],
  ];
  for (const [b, holds] of tests) {
    if (b === undefined) continue;
    if (b === null || typeof b !== typeof c) return false;
    if (!holds(modelCompare(c, b as boolean | number | string))) return false;
  }
  return true;
}

function modelMatches(doc: Document, q: Query): boolean {
  switch (q.kind) {
    case 'by':
      return modelCandidates(doc, q.path).some((c) => modelEqual(c, q.value));
    case 'range':
      return modelCandidates(doc, q.path).some((c) => modelInRange(c, q.bounds));
    case 'tuple':
      return q.paths.every((p, i) =>
        modelCandidates(doc, p).some((c) => modelEqual(c, q.values[i])),
      );
    default: {
      const never: never = q;
      throw new Error(`unknown query ${inspect(never)}`);
    }
  }
}

// ---- running and checking finds --------------------------------------------------------

function find(c: Collection, q: Query, useIndex: boolean, limit?: number): FindResult {
  const options = limit === undefined ? { useIndex } : { useIndex, limit };
  switch (q.kind) {
    case 'by':
      return c.findBy(q.path, q.value, options);
    case 'range':
      return c.findRange(q.path, q.bounds, options);
    case 'tuple':
      return c.findByTuple(q.paths, q.values, options);
    default: {
      const never: never = q;
      throw new Error(`unknown query ${inspect(never)}`);
    }
  }
}

function queryPaths(q: Query): string {
  return q.kind === 'tuple' ? q.paths.join(',') : q.path;
}

function ids(documents: Document[]): string[] {
  return documents.map((d) => d._id as string).sort();
}

function byId(documents: Document[]): Document[] {
  return [...documents].sort((a, b) => ((a._id as string) < (b._id as string) ? -1 : 1));
}

/** No ready index: every find is a scan. */
const NO_INDEXES: Record<string, string> = {};

/**
 * Runs one find with and without indexes and checks: the same documents (no duplicates),
 * the index `indexFor` names for the paths (undefined: a scan), and the model's selection.
 */
function check(c: Collection, q: Query, model: Model, indexFor: Record<string, string>): void {
  const label = inspect(q, { depth: 5 });
  const viaIndex = find(c, q, true);
  const viaScan = find(c, q, false);
  expect(viaScan.index, label).toBeUndefined();
  expect(viaIndex.index, label).toBe(indexFor[queryPaths(q)]);
  const indexIds = ids(viaIndex.documents);
  expect(new Set(indexIds).size, `${label}: duplicates`).toBe(indexIds.length);
  expect(byId(viaIndex.documents), label).toEqual(byId(viaScan.documents));
  const expected = [...model].filter(([, doc]) => modelMatches(doc, q)).map(([id]) => id);
  expect(ids(viaScan.documents), `${label}: model`).toEqual(expected.sort());
  // A limit cuts either answer to a subset of the full one (index and scan order differ).
  for (const useIndex of [true, false]) {
    const limited = ids(find(c, q, useIndex, 2).documents);
    expect(limited.length, `${label}: limit 2`).toBe(Math.min(2, expected.length));
    for (const id of limited) expect(expected, `${label}: limit 2`).toContain(id);
  }
}

async function insertAll(c: Collection, docs: Document[], model: Model, skipIndexes = false) {
  const result = await c.insertMany(docs, { skipIndexes });
  expect(result.errors).toEqual([]);
  result.ids.forEach((id, i) => {
    model.set(id, docs[i] as Document);
  });
}

/** Runs of the main property; the others take half. Raise it to hunt: DOCDB_PROPERTY_RUNS=1000. */
const NUM_RUNS = Number(process.env.DOCDB_PROPERTY_RUNS ?? 100);

// ---- the properties --------------------------------------------------------------------

describe('an index lookup returns exactly what a scan selects', () => {
  it('for random documents and equality, range and tuple predicates', async () => {
    await fc.assert(
      fc.asyncProperty(docsArb, fc.nat(30), queriesArb, async (docs, split, queries) => {
        await withCollection(async (c) => {
          const model: Model = new Map();
          // Documents before the indexes exist are indexed by the build, the rest by upkeep.
          const at = Math.min(split, docs.length);
          await insertAll(c, docs.slice(0, at), model);
          await createIndexes(c);
          await insertAll(c, docs.slice(at), model);
          for (const q of queries) check(c, q, model, INDEX_FOR);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('while documents are replaced, deleted and inserted (index upkeep)', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), doc: docArb }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('insert' as const), doc: docArb }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb, { minLength: 1, maxLength: 15 }),
        fc.array(op, { minLength: 1, maxLength: 8 }),
        fc.array(queryArb, { minLength: 5, maxLength: 10 }),
        async (docs, ops, queries) => {
          await withCollection(async (c) => {
            const model: Model = new Map();
            await createIndexes(c);
            await insertAll(c, docs, model);
            for (const o of ops) {
              const live = [...model.keys()];
              const id =
                live.length > 0 && o.kind !== 'insert' ? live[o.at % live.length] : undefined;
              if (o.kind === 'insert') {
                model.set(await c.insert(o.doc), o.doc);
              } else if (o.kind === 'replace' && id) {
                await c.replace(id, o.doc);
                model.set(id, o.doc);
              } else if (o.kind === 'delete' && id) {
                expect(await c.delete(id)).toBe(true);
                model.delete(id);
              }
              for (const q of queries) check(c, q, model, INDEX_FOR);
            }
          });
        },
      ),
      { numRuns: Math.ceil(NUM_RUNS / 2) },
    );
  });

  it('never uses a stale index after a skipIndexes load, and uses it again once rebuilt', async () => {
    await fc.assert(
      fc.asyncProperty(
        docsArb,
        fc.array(docArb, { minLength: 1, maxLength: 15 }),
        docArb,
        queriesArb,
        async (before, loaded, later, queries) => {
          await withCollection(async (c) => {
            const model: Model = new Map();
            await createIndexes(c);
            await insertAll(c, before, model);
            await insertAll(c, loaded, model, true);
            expect(c.listIndexes().map((i) => i.state)).toEqual(INDEXES.map(() => 'stale'));
            for (const q of queries) check(c, q, model, NO_INDEXES);
            // Writes while stale do not revive the indexes; results stay correct.
            model.set(await c.insert(later), later);
            const first = [...model.keys()][0] as string;
            await c.replace(first, later);
            model.set(first, later);
            for (const q of queries) check(c, q, model, NO_INDEXES);
            await c.rebuildIndexes();
            expect(c.listIndexes().map((i) => i.state)).toEqual(INDEXES.map(() => 'ready'));
            for (const q of queries) check(c, q, model, INDEX_FOR);
          });
        },
      ),
      { numRuns: Math.ceil(NUM_RUNS / 2) },
    );
  });
});

describe('unique indexes', () => {
  const uValue: fc.Arbitrary<unknown> = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 6 }) },
    { weight: 3, arbitrary: fc.constantFrom('0', '1', 'a', 'b', -0, 1.0, 0.5) },
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>([1], { x: 1 }) },
  );
  const uDoc = fc.record({ u: uValue, n: smallInt }, { requiredKeys: ['n'] });

  /** True when a document in the model already holds u's non-null scalar value. */
  function taken(model: Model, u: unknown, self?: string): boolean {
    if (u === null || u === undefined || !isScalarValue(u)) return false;
    return [...model].some(([id, d]) => id !== self && d.u === u);
  }

  async function rejected(write: Promise<unknown>): Promise<boolean> {
    try {
      await write;
      return false;
    } catch (error) {
      if (isDbError(error, 'ERR_UNIQUE_VIOLATION')) return true;
      throw error;
    }
  }

  it('admits a value once (null and missing any number of times) and finds like a scan', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(uDoc, { minLength: 1, maxLength: 20 }),
        fc.array(fc.tuple(fc.nat(), uDoc), { maxLength: 6 }),
        fc.array(uValue, { minLength: 5, maxLength: 10 }),
        async (docs, replacements, values) => {
          await withCollection(async (c) => {
            await c.createIndex({ paths: ['u'], name: 'u_unique', unique: true });
            await c.createIndex({ paths: ['n'], name: 'by_n' });
            const model: Model = new Map();
            for (const doc of docs) {
              const expectReject = taken(model, doc.u);
              let id: string | undefined;
              const wasRejected = await rejected(c.insert(doc).then((x) => (id = x)));
              expect(wasRejected, inspect(doc)).toBe(expectReject);
              if (id) model.set(id, doc);
            }
            for (const [at, doc] of replacements) {
              const live = [...model.keys()];
              const id = live[at % live.length] as string;
              const expectReject = taken(model, doc.u, id);
              expect(await rejected(c.replace(id, doc)), inspect(doc)).toBe(expectReject);
              // A rejected replace leaves nothing behind, in any index.
              if (!expectReject) model.set(id, doc);
            }
            expect(c.count()).toBe(model.size);
            for (const value of values) {
              const q: Query = { kind: 'by', path: 'u', value };
              const viaIndex = c.findBy('u', value);
              expect(viaIndex.index).toBe('u_unique');
              expect(byId(viaIndex.documents)).toEqual(
                byId(c.findBy('u', value, { useIndex: false }).documents),
              );
              const expected = [...model]
                .filter(([, d]) => modelEqual(d.u ?? null, value))
                .map(([id]) => id);
              expect(ids(viaIndex.documents), inspect(q)).toEqual(expected.sort());
              const nValue = value as number;
              const byN = c.findBy('n', nValue);
              expect(byN.index).toBe('by_n');
              expect(ids(byN.documents)).toEqual(
                ids(c.findBy('n', nValue, { useIndex: false }).documents),
              );
            }
          });
        },
      ),
      { numRuns: Math.ceil(NUM_RUNS / 2) },
    );
  });

  it('refuses to build over duplicates and leaves the collection without the index', async () => {
    await withCollection(async (c) => {
      await c.insertMany([{ u: 1 }, { u: 1.0 }, { u: null }, {}]);
      expect(await rejected(c.createIndex({ paths: ['u'], unique: true }))).toBe(true);
      expect(c.listIndexes()).toEqual([]);
      expect(c.findBy('u', 1).index).toBeUndefined();
      expect(c.findBy('u', 1).documents).toHaveLength(2);
    });
  });

  it('treats -0 and 0 as the same value', async () => {
    await withCollection(async (c) => {
      await c.createIndex({ paths: ['u'], unique: true });
      await c.insert({ u: 0 });
      expect(await rejected(c.insert({ u: -0 }))).toBe(true);
      expect(ids(c.findBy('u', -0).documents)).toEqual(
        ids(c.findBy('u', 0, { useIndex: false }).documents),
      );
    });
  });
});

describe('keys truncated past KEY_VALUE_BYTES_MAX', () => {
  // 1,100 bytes in UTF-8 (mixing 1-, 2- and 4-byte characters): every key built from these
  // strings is cut inside the shared prefix, so only the recheck tells the documents apart.
  const PREFIX = 'x'.repeat(500) + 'é'.repeat(200) + '😀'.repeat(50);
  const tails = ['', 'a', 'b', 'ab', '\u0000', '😀', 'a'.repeat(200), 'b'.repeat(300)];
  const long = (t: string) => PREFIX + t;

  it('the shared prefix really is longer than the key limit', () => {
    expect(Buffer.byteLength(PREFIX, 'utf8')).toBeGreaterThan(1024 + 16);
  });

  it('equality, ranges and tuples through the index are exact', async () => {
    const tailArb = fc.constantFrom(...tails);
    const longDoc = fc.record(
      {
        s: fc.oneof(
          { weight: 4, arbitrary: tailArb.map(long) },
          { weight: 1, arbitrary: smallString },
        ),
        n: smallInt,
        tags: fc.array(fc.oneof(tailArb.map(long), smallString), { maxLength: 3 }),
        a: fc.record({ b: tailArb.map(long) }),
      },
      { requiredKeys: ['s', 'n'] },
    );
    const longValue = fc.oneof(tailArb.map(long), smallString, fc.constant(PREFIX.slice(0, 400)));
    const longQuery: fc.Arbitrary<Query> = fc.oneof(
      fc.record({
        kind: fc.constant('by' as const),
        path: fc.constantFrom('s', 'tags[*]', 'a.b'),
        value: longValue,
      }),
      fc.record({
        kind: fc.constant('range' as const),
        path: fc.constantFrom('s', 'tags[*]', 'a.b'),
        bounds: fc
          .record(
            { gt: longValue, gte: longValue, lt: longValue, lte: longValue },
            { requiredKeys: [] },
          )
          .filter((b) => Object.keys(b).length > 0),
      }),
      fc.record({
        kind: fc.constant('tuple' as const),
        paths: fc.constant<string[]>(['s', 'n']),
        values: fc.tuple(longValue, smallInt),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(longDoc, { minLength: 1, maxLength: 20 }),
        fc.array(longQuery, { minLength: 10, maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        async (docs, queries, deletions) => {
          await withCollection(async (c) => {
            const model: Model = new Map();
            await insertAll(c, docs.slice(0, 5), model);
            await createIndexes(c);
            await insertAll(c, docs.slice(5), model);
            for (const q of queries) check(c, q, model, INDEX_FOR);
            // Replaces are left out here: see the known bug on truncated keys below.
            for (const at of deletions) {
              const live = [...model.keys()];
              if (live.length === 0) break;
              const id = live[at % live.length] as string;
              await c.delete(id);
              model.delete(id);
            }
            for (const q of queries) check(c, q, model, INDEX_FOR);
          });
        },
      ),
      { numRuns: Math.ceil(NUM_RUNS / 2) },
    );
  });

  it('finds each of several documents that differ only after the first 1024 bytes', async () => {
    await withCollection(async (c) => {
      await c.createIndex({ paths: ['s'], name: 'by_s' });
      const model: Model = new Map();
      await insertAll(
        c,
        tails.map((t) => ({ s: long(t) })),
        model,
      );
      for (const t of tails) {
        const found = c.findBy('s', long(t));
        expect(found.index).toBe('by_s');
        expect(found.documents.map((d) => d.s)).toEqual([long(t)]);
      }
      expect(c.findBy('s', long('c')).documents).toEqual([]);
      const range = c.findRange('s', { gt: long('a'), lte: long('b') });
      expect(range.index).toBe('by_s');
      expect(range.documents.map((d) => d.s).sort()).toEqual(
        [long('ab'), long('a'.repeat(200)), long('b')].sort(),
      );
    });
  });

  it('a unique index admits values that differ only after the first 1024 bytes', async () => {
    await withCollection(async (c) => {
      await c.createIndex({ paths: ['s'], name: 'u_s', unique: true });
      const model: Model = new Map();
      await insertAll(c, [{ s: long('a') }, { s: long('b') }], model);
      model.set(await c.insert({ s: long('c') }), { s: long('c') });
      await expect(c.insert({ s: long('a') })).rejects.toMatchObject({
        code: 'ERR_UNIQUE_VIOLATION',
      });
      const batch = await c.insertMany([{ s: long('d') }, { s: long('d') }]);
      expect(batch.errors.map((e) => e.code)).toEqual(['ERR_UNIQUE_VIOLATION']);
      model.set(batch.ids[0] as string, { s: long('d') });
      for (const t of ['a', 'b', 'c', 'd', 'e']) {
        check(c, { kind: 'by', path: 's', value: long(t) }, model, { s: 'u_s' });
        expect(c.findBy('s', long(t)).documents).toHaveLength(t === 'e' ? 0 : 1);
      }
    });
  });

  it('a unique index builds over values that differ only after the first 1024 bytes', async () => {
    await withCollection(async (c) => {
      await c.insertMany([{ s: long('a') }, { s: long('b') }]);
      await c.createIndex({ paths: ['s'], unique: true });
      await c.insert({ s: long('c') });
      await c.insertMany([{ s: long('a') }], { skipIndexes: true });
      await expect(c.rebuildIndexes()).rejects.toMatchObject({ code: 'ERR_UNIQUE_VIOLATION' });
    });
  });
});

// ---- regressions: bugs these properties found, kept as named cases -----------------------

describe('regressions', () => {
  it('a range find without any bound is rejected, with or without an index', async () => {
    await withCollection(async (c) => {
      await c.createIndex({ paths: ['s'], name: 'by_s' });
      await c.insert({ s: 'a' });
      expect(() => c.findRange('s', {})).toThrow(
        expect.objectContaining({ code: 'ERR_BAD_ARGUMENT' }),
      );
      expect(() => c.findRange('s', {}, { useIndex: false })).toThrow(
        expect.objectContaining({ code: 'ERR_BAD_ARGUMENT' }),
      );
    });
  });

  // Was: a composite index served a find on its leading path by prefix, but a document whose
  // later indexed path holds an array or object has no entry in it, so the index answer
  // missed documents a scan finds. Fixed by using a composite index only for all its paths.
  it('a composite index serving its leading path lists documents whose later path holds an array', async () => {
    await withCollection(async (c) => {
      await c.createIndex({ paths: ['s', 'n'], name: 'by_s_n' });
      await c.insertMany([
        { s: 'a', n: 1 },
        { s: 'a', n: [1] },
        { s: 'a', n: { x: 1 } },
        { s: 'a' },
      ]);
      const viaIndex = c.findBy('s', 'a');
      expect(viaIndex.index).toBeUndefined();
      expect(ids(viaIndex.documents)).toEqual(
        ids(c.findBy('s', 'a', { useIndex: false }).documents),
      );
    });
  });

  // The same bug with a multikey later path: an empty or missing array gives no tuple.
  it('a composite index with a [*] path serving its leading path lists documents with no elements', async () => {
    await withCollection(async (c) => {
      await c.createIndex({ paths: ['s', 'tags[*]'], name: 'by_s_tags' });
      await c.insertMany([{ s: 'a', tags: ['x'] }, { s: 'a', tags: [] }, { s: 'a' }]);
      const viaIndex = c.findRange('s', { gte: 'a' });
      expect(viaIndex.index).toBeUndefined();
      expect(ids(viaIndex.documents)).toEqual(
        ids(c.findRange('s', { gte: 'a' }, { useIndex: false }).documents),
      );
    });
  });

  // Was (since the dupsort change, 8d36805): replaceDocument compares old and new index
  // values with sameValueKey, which tells apart values whose keys were truncated to the same
  // 1024 bytes. Replacing one such value by another therefore "adds" the new key (a no-op:
  // the same key and id are already in the dupsort index) and then removes the old one,
  // which is the same (key, id) pair: the document loses its only index entry.
  it('replacing a long value by another with the same first 1024 bytes keeps the document indexed', async () => {
    await withCollection(async (c) => {
      await c.createIndex({ paths: ['s'], name: 'by_s' });
      const prefix = 'x'.repeat(1100);
      const id = await c.insert({ s: `${prefix}a` });
      await c.replace(id, { s: `${prefix}b` });
      const viaIndex = c.findBy('s', `${prefix}b`);
      expect(viaIndex.index).toBe('by_s');
      expect(ids(viaIndex.documents)).toEqual([id]);
    });
  });

  // The same bug through a multikey index: two elements share one truncated key (one entry);
  // dropping one element on replace removes the entry the other still needs.
  it('dropping one of two long elements with the same first 1024 bytes keeps the other indexed', async () => {
    await withCollection(async (c) => {
      await c.createIndex({ paths: ['tags[*]'], name: 'by_tags' });
      const prefix = 'x'.repeat(1100);
      const id = await c.insert({ tags: [`${prefix}a`, `${prefix}b`] });
      await c.replace(id, { tags: [`${prefix}a`] });
      expect(ids(c.findBy('tags[*]', `${prefix}a`).documents)).toEqual([id]);
    });
  });

  // Was: `limit: 0` returned one document. lookup.ts `collect` pushes an accepted document
  // before it checks `documents.length >= limit`; list() treats limit 0 as "none".
  it('a find with limit 0 returns no documents', async () => {
    await withCollection(async (c) => {
      await c.insertMany([{ n: 1 }, { n: 1 }]);
      expect(c.findBy('n', 1, { limit: 0, useIndex: false }).documents).toEqual([]);
      await c.createIndex({ paths: ['n'] });
      expect(c.findBy('n', 1, { limit: 0 }).documents).toEqual([]);
    });
  });

  // Was: a string holding a lone surrogate is indexed from the document as given (UTF-8 via
  // Buffer: U+FFFD) but stored through msgpackr, which writes short strings with its own
  // encoder; read back, the stored value differs from what was indexed ('\ud800x' comes back
  // as '\ufffd\ufffd\ufffdx'). Finding the stored value through the index misses the
  // document a scan finds. Either rejecting such strings or storing them as indexed fixes it.
  it('a string with a lone surrogate is found through the index as by a scan', async () => {
    await withCollection(async (c) => {
      await c.createIndex({ paths: ['s'], name: 'by_s' });
      const given = '\ud800x';
      try {
        await c.insert({ s: given });
      } catch (error) {
        if (isDbError(error, 'ERR_DOCUMENT_INVALID')) return; // rejecting it is a fix too
        throw error;
      }
      const stored = [...c.scan()][0]?.s;
      for (const value of [given, stored]) {
        const viaIndex = c.findBy('s', value);
        expect(ids(viaIndex.documents), inspect(value)).toEqual(
          ids(c.findBy('s', value, { useIndex: false }).documents),
        );
      }
      expect(stored).toBe(given);
    });
  });

  // Was: json-path's valueAt/valuesAt read inherited Object.prototype members, so for a
  // document without a `constructor` field the path `constructor` holds a function, not a
  // missing value, and `IS NULL`-style equality with null finds nothing (scan and index
  // agree, both wrong).
  it('a field named like an Object.prototype member counts as missing when absent', async () => {
    await withCollection(async (c) => {
      await c.insertMany([{ n: 1 }, { n: 2, constructor: null }]);
      expect(c.findBy('constructor', null, { useIndex: false }).documents).toHaveLength(2);
      await c.createIndex({ paths: ['toString'], name: 'by_to_string' });
      expect(c.findBy('toString', null).documents).toHaveLength(2);
    });
  });
});
