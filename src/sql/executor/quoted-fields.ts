/**
 * The warning for a trap of the dialect: double quotes make a field name, not a string, so
 * `WHERE status = "pending"` compares two fields and matches nothing. For each path a
 * statement wrote in double quotes, it looks for one document of the statement's collection
 * that has that field, and words a warning when none has. It reads and never changes.
 */

import { normalizeCollectionName, type Store } from '../../storage/index.js';
import { parsePath, valueAt } from '../../util/index.js';
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
 * holds (`_id` always exists). Stops at the first document that has the field, so the cost
 * is a full scan only when the warning is due.
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
  for (const text of new Set(quotedPaths.map((p) => p.text))) {
    const path = parsePath(text);
    if (path.segments[0]?.kind === 'field' && path.segments[0].name === '_id') continue;
    let found = false;
    for (const stored of store.scan(def)) {
      if (valueAt(stored.body, path) !== undefined) {
        found = true;
        break;
      }
    }
    if (!found) {
      warnings.push(
        `"${text}" is in double quotes, which name a field, and no document in ${name} has a field ${text}; for the string, write '${text}' in single quotes`,
      );
    }
  }
  return warnings;
}
