/**
 * How an access path reads each document: whole, or only the paths its statement reads (a
 * sparse copy from `FieldSelection`, which answers `valueAt` on each of them as the whole
 * document would). Decides nothing about which documents are read.
 */

import {
  type CollectionDef,
  type Document,
  FieldSelection,
  type StoreReader,
} from '../../storage/index.js';
import type { JsonPath } from '../../util/index.js';
import type { AccessNode } from '../planner/index.js';
import type { ExecContext } from './context.js';

/** One FieldSelection per planned path list (cached plans keep theirs). */
const selections = new WeakMap<readonly JsonPath[], FieldSelection>();

/** The FieldSelection of a planned path list, made once per list. */
export function selectionOf(paths: readonly JsonPath[]): FieldSelection {
  let selection = selections.get(paths);
  if (!selection) {
    selection = new FieldSelection(paths);
    selections.set(paths, selection);
  }
  return selection;
}

/** Reads one document of an access path by id (undefined: not there). */
export type BodyRead = (id: Buffer) => Document | undefined;

/**
 * How an index access reads the documents its ids lead to: only the node's selection when it
 * has one and its rows need no whole document (`SELECT *` does, unless the context streams
 * sparse rows), else whole. A JOIN that projects three fields of each order decodes those
 * three (issue 25).
 */
export function bodyRead(node: AccessNode, ctx: ExecContext, def: CollectionDef): BodyRead {
  const reader: StoreReader = ctx.reader;
  if (node.selection && !(node.whole && !ctx.sparse)) {
    const selection = selectionOf(node.selection);
    return (id) => reader.getSelected(def, id, selection);
  }
  return (id) => reader.getBody(def, id);
}
