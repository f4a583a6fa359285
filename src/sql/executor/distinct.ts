/** DISTINCT: the first of each set of equal result rows (the semantics module's key). */

import type { Document } from '../../storage/index.js';
import type { DistinctNode } from '../planner/index.js';
import { distinctKey } from '../semantics/index.js';
import type { Row } from './context.js';

export function* distinctRows(_node: DistinctNode, input: Iterable<Row>): Generator<Row> {
  const seen = new Set<string>();
  for (const row of input) {
    const key = distinctKey(row[0] as Document);
    if (seen.has(key)) continue;
    seen.add(key);
    yield row;
  }
}
