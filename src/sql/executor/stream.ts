/**
 * Streaming SELECT: the count is known before the first document goes out, yet memory grows
 * with the number of matching ids, not documents (DESIGN §4). The rows below the sort and
 * projection are pulled as sparse selections under a pinned snapshot, keeping only each id
 * and sort key; documents are read back through that snapshot one at a time and projected.
 * A whole collection unfiltered and unsorted keeps no ids: its count is the snapshot's, and
 * its documents are read with one cursor. Aggregates, joins and DISTINCT produce small or
 * derived rows and are materialised instead.
 */

import {
  type Document,
  type DocumentSnapshot,
  type JsonProjection,
  type StoreReader,
  withId,
} from '../../storage/index.js';
import type { JsonLines, JsonText } from '../../types/index.js';
import { jsonText, parseId } from '../../util/index.js';
import { bindPlan, planNodes, plainShape, type SelectPlan } from '../planner/index.js';
import { compareSortKeys, type SortKey } from '../semantics/index.js';
import { type QueryLimits, StatementBudget } from './budget.js';
import { type ExecContext, requireCollection } from './context.js';
import { execute } from './execute.js';
import { limitOf } from './limit.js';
import { jsonProjectionOf, projectDocument } from './project.js';
import { runSelect } from './select.js';
import { descendingOf, sortedFirst, sortKeyOf } from './sort.js';

/** A result whose documents are read one at a time. */
export interface StreamedSelect {
  plan: string;
  count: number;
  /**
   * Objects, or with `rows: 'json'` JsonText where the plan reads documents by id; with
   * `rows: 'ndjson'` JsonLines there instead (several rows each), unless sort keys travel.
   */
  documents: Iterable<Document | JsonText | JsonLines>;
  /** With `sortKeys`, when the plan sorts: each document's sort key, in document order. */
  sortKeys?: SortKey[];
}

interface Entry {
  id: Buffer;
  key: SortKey | undefined;
}

/** Plans the stream of a SELECT: collects ids now, reads documents when iterated. */
export function streamSelect(
  reader: StoreReader,
  plan: SelectPlan,
  params: readonly unknown[],
  snapshot: DocumentSnapshot,
  options: { sortKeys?: boolean; rows?: 'objects' | 'json' | 'ndjson'; limits?: QueryLimits } = {},
): StreamedSelect {
  const bound = bindPlan(plan, params);
  const materialised = planNodes(bound.root).some(
    (n) => n.kind === 'aggregate' || n.kind === 'hashJoin' || n.kind === 'distinct',
  );
  const shape = materialised ? undefined : plainShape(bound.root);
  if (!shape) {
    const rows = options.rows === 'ndjson' ? 'json' : options.rows;
    const { documents, sortKeys } = runSelect(reader, plan, params, { ...options, rows });
    return { plan: bound.plan, count: documents.length, documents, ...(sortKeys && { sortKeys }) };
  }
  const ctx: ExecContext = {
    reader,
    params,
    resolver: plan.resolver,
    sparse: true,
    budget: new StatementBudget(options.limits),
  };
  const limit = limitOf(shape.limit?.limit, params, 'LIMIT');
  const offset = limitOf(shape.limit?.offset, params, 'OFFSET');
  // As NDJSON chunks where rows travel alone (no sort key beside each) and transcode.
  const json = options.rows === 'json' || options.rows === 'ndjson';
  const projection = json ? jsonProjectionOf(shape.project) : undefined;
  const lines = options.rows === 'ndjson' && projection && !(options.sortKeys && shape.sort);
  if (lines && shape.rows.kind === 'scan' && !shape.sort) {
    const def = requireCollection(reader, shape.rows.collection);
    const stored = snapshot.count(def);
    return {
      plan: bound.plan,
      count: Math.max(0, Math.min(stored - offset, limit)),
      documents: snapshot.scanLines(def, projectionOf(projection), { skip: offset, take: limit }),
    };
  }
  const { sort, rows } = shape;
  const stopAt = shape.limit?.early ? offset + limit : Number.POSITIVE_INFINITY;
  // Only ids and sort keys are kept here; the documents are read when streamed.
  function* found(): Generator<Entry> {
    if (stopAt === 0) return;
    let n = 0;
    for (const row of execute(rows, ctx)) {
      const doc = row[0] as Document;
      yield { id: parseId(doc._id) as Buffer, key: sort && sortKeyOf(sort, row) };
      if (++n >= stopAt) return;
    }
  }
  const descending = sort && descendingOf(sort);
  const ordered = descending
    ? sortedFirst(
        found(),
        (a, b) => compareSortKeys(a.key as SortKey, b.key as SortKey, descending),
        ctx.budget,
        offset + limit,
      )
    : [...found()];
  const chosen = ordered.slice(
    offset,
    limit === Number.POSITIVE_INFINITY ? undefined : offset + limit,
  );
  const def = requireCollection(reader, plan.sources[0] as string);
  const { project } = shape;
  return {
    plan: bound.plan,
    count: chosen.length,
    ...(options.sortKeys && shape.sort && { sortKeys: chosen.map((e) => e.key as SortKey) }),
    documents: lines
      ? snapshot.idLines(def, projectionOf(projection), idsOf(chosen))
      : (function* () {
          // As JSON text: written from each stored document's bytes, never decoded whole.
          for (const entry of chosen) {
            if (projection) {
              const text = snapshot.getJson(def, entry.id, projectionOf(projection));
              if (text !== undefined) yield jsonText(text);
              continue;
            }
            const body = snapshot.getBody(def, entry.id);
            if (body) yield projectDocument(project, [withId(entry.id, body)]);
          }
        })(),
  };
}

/** The projection a snapshot read applies: none for `SELECT *`. */
function projectionOf(json: JsonProjection | 'whole'): JsonProjection | undefined {
  return json === 'whole' ? undefined : json;
}

function* idsOf(entries: readonly Entry[]): Generator<Buffer> {
  for (const entry of entries) yield entry.id;
}
