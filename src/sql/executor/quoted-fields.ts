/**
 * The warning for a trap of the dialect: double quotes make a field name, not a string, so
 * `WHERE status = "pending"` compares two fields and matches nothing. For each path a
 * statement wrote in double quotes, it looks for one document of the statement's collection
 * that has that field, and words a warning when none has. It reads only that field of each
 * document, and at most the first QUOTED_FIELD_SCAN_DOCUMENTS_MAX (in `_id` order): the look
 * runs at every execution, outside the statement's time, and a full scan of a large
 * collection for each quoted path doubled what a wrong query cost. It never changes anything.
 */

import { FieldSelection, normalizeCollectionName, type Store } from '../../storage/index.js';
import { parsePath, QUOTED_FIELD_SCAN_DOCUMENTS_MAX, valueAt } from '../../util/index.js';
import type { PathRef, Statement } from '../ast/index.js';

/** The collection whose documents a statement's quoted paths are looked up in, if one. */
function scannedCollection(statement: Statement): string | undefined {
  switch (statement.kind) {
    case 'select':
      // A JOIN's paths start with a collection name; they are not looked up here.
      return statement.joins.length === 0 ? statement.from : undefined;
    case 'update':
    case 'delete':
      return statement.collection;
    case 'insert':
    case 'createIndex':
    case 'dropIndex':
      return undefined;
    default: {
      const never: never = statement;
      return never;
    }
  }
}

/**
 * One warning per distinct double-quoted path that no document of the statement's collection
 * holds (`_id` always exists), or none of its first QUOTED_FIELD_SCAN_DOCUMENTS_MAX when it
 * has more. Stops at the first document that has the field.
 */
export function quotedFieldWarnings(
  store: Store,
  statement: Statement,
  quotedPaths: readonly PathRef[],
): string[] {
  const name = scannedCollection(statement);
  if (name === undefined || quotedPaths.length === 0) return [];
  const def = store.getCollection(normalizeCollectionName(name));
  if (def === undefined) return [];
  const warnings: string[] = [];
  let looked: string | undefined;
  for (const text of new Set(quotedPaths.map((p) => p.text))) {
    const path = parsePath(text);
    if (path.segments[0]?.kind === 'field' && path.segments[0].name === '_id') continue;
    let read = 0;
    let found = false;
    // Kept (so the scan yields, and stops) when it has the field or is the last one looked at.
    const stop = (part: Record<string, unknown>) => {
      found = valueAt(part, path) !== undefined;
      return found || ++read >= QUOTED_FIELD_SCAN_DOCUMENTS_MAX;
    };
    for (const _ of store.scanSelected(def, new FieldSelection([path]), stop, false)) break;
    if (found) continue;
    looked ??=
      read < QUOTED_FIELD_SCAN_DOCUMENTS_MAX || store.count(def) <= read
        ? `no document in ${name}`
        : `none of the first ${read.toLocaleString('en-US')} documents in ${name}`;
    warnings.push(
      `"${text}" is in double quotes, which name a field, and ${looked} has a field ${text}; for the string, write '${text}' in single quotes`,
    );
  }
  return warnings;
}
