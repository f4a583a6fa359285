/** What the planner sees of a stored collection: its name and index definitions. */

import type { CollectionDef } from '../../storage/index.js';
import type { CollectionView } from '../planner/index.js';

/** A view of a collection for the planner. */
export function viewOf(def: CollectionDef): CollectionView {
  return {
    name: def.name,
    indexes: def.indexes.map((i) => ({
      name: i.name,
      paths: i.paths,
      unique: i.unique,
      multikey: i.multikey,
      state: i.state,
    })),
  };
}
