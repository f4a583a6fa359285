/**
 * The collection scan: every document in `_id` order. A scan that may decode only the paths
 * its statement reads (`FieldSelection`) tests WHERE on that sparse copy inside the reader,
 * so documents WHERE rejects are never built whole; that test ticks the statement's budget.
 */

import type { Document, StoredDocument } from '../../storage/index.js';
import type { ScanNode } from '../planner/index.js';
import { type ExecContext, requireCollection } from './context.js';
import { selectionOf } from './selection.js';

/** Documents of a scan, and whether `keep` has already tested them. */
export interface ScannedDocuments {
  documents: Iterable<StoredDocument>;
  tested: boolean;
}

/**
 * The documents of a scan. With a selection, `keep` (when given) runs on each sparse copy
 * inside the reader and only kept documents come out, whole unless the node or the context
 * says otherwise; without one, documents come whole and untested.
 */
export function scanDocuments(
  node: ScanNode,
  ctx: ExecContext,
  keep: ((part: Document) => boolean) | undefined,
): ScannedDocuments {
  const def = requireCollection(ctx.reader, node.collection);
  if (!node.selection) return { documents: ctx.reader.scan(def), tested: false };
  const whole = node.whole && !ctx.sparse;
  // The reader tests each document inside its loop: the test ticks the statement's budget.
  const { budget } = ctx;
  const ticked = keep
    ? (part: Document) => {
        budget.tick();
        return keep(part);
      }
    : undefined;
  return {
    documents: ctx.reader.scanSelected(def, selectionOf(node.selection), ticked, whole),
    tested: true,
  };
}
