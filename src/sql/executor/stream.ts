/**
 * Streaming SELECT: the count is known before the first document goes out, yet memory grows
 * with the number of matching ids, not documents (DESIGN §4). Matching ids (and ORDER BY
 * keys) are collected under a pinned snapshot, then documents are read back through that
 * snapshot one at a time. Aggregates, joins and DISTINCT produce small or derived rows and
 * are materialised instead.
 */

import {
  type Document,
  type DocumentSnapshot,
  type StoreReader,
  withId,
} from '../../storage/index.js';
import { compareValues, parseId, valueAt } from '../../util/index.js';
import { isAggregate, limitPushesDown } from '../planner/index.js';
import {
  limitOf,
  matchingRows,
  project,
  runSelect,
  type SelectPlan,
  type Source,
} from './select.js';

/** A result whose documents are read one at a time. */
export interface StreamedSelect {
  count: number;
  documents: Iterable<Document>;
}

interface Entry {
  id: Buffer;
  keys: unknown[];
}

/** Plans the stream of a SELECT: collects ids now, reads documents when iterated. */
export function streamSelect(
  store: StoreReader,
  plan: SelectPlan,
  params: readonly unknown[],
  snapshot: DocumentSnapshot,
): StreamedSelect {
  const { statement } = plan;
  if (isAggregate(statement) || statement.joins.length > 0 || statement.distinct) {
    const documents = runSelect(store, plan, params);
    return { count: documents.length, documents };
  }
  const limit = limitOf(statement.limit, params, 'LIMIT');
  const offset = limitOf(statement.offset, params, 'OFFSET');
  const orderPaths = statement.orderBy.map((o) => plan.resolver.resolve(o.path));
  const entries: Entry[] = [];
  const stopAt = limitPushesDown(statement) ? offset + limit : Number.POSITIVE_INFINITY;
  if (stopAt > 0) {
    // Only ids and ORDER BY keys are kept here; the documents are read when streamed.
    for (const row of matchingRows(store, plan, params, false)) {
      const doc = row[0] as Document;
      entries.push({
        id: parseId(doc._id) as Buffer,
        keys: orderPaths.map((p) => valueAt(doc, p.path)),
      });
      if (entries.length >= stopAt) break;
    }
  }
  if (orderPaths.length > 0) {
    entries.sort((a, b) => {
      for (let k = 0; k < orderPaths.length; k++) {
        const c = compareValues(a.keys[k], b.keys[k]);
        if (c !== 0) return statement.orderBy[k]?.descending ? -c : c;
      }
      return a.id.compare(b.id);
    });
  }
  const chosen = entries.slice(
    offset,
    limit === Number.POSITIVE_INFINITY ? undefined : offset + limit,
  );
  const def = (plan.sources[0] as Source).def;
  return {
    count: chosen.length,
    documents: (function* () {
      for (const entry of chosen) {
        const body = snapshot.getBody(def, entry.id);
        if (body) yield project(plan, [withId(entry.id, body)]);
      }
    })(),
  };
}
