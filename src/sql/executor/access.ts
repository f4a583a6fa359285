/**
 * Rows of an access path (scan, index lookup, index range), with the filter above it fused
 * in: WHERE runs on each document before `_id` is attached (unless WHERE reads `_id`), and a
 * scan that decodes a selection runs it inside the reader. The plan string is unaffected: a
 * fused filter is still the filter node of the plan.
 */

import { type Document, type StoredDocument, withId } from '../../storage/index.js';
import { assertNever, type Condition } from '../ast/index.js';
import type { AccessNode } from '../planner/index.js';
import { documentPredicate, type ExecContext, type Row } from './context.js';
import { lookupDocuments } from './index-lookup.js';
import { rangeDocuments } from './index-range.js';
import { indexProves } from './proven.js';
import { scanDocuments } from './scan.js';

/** The stored documents of an access path, untested by any condition. */
export function accessDocuments(node: AccessNode, ctx: ExecContext): Iterable<StoredDocument> {
  switch (node.kind) {
    case 'scan':
      return scanDocuments(node, ctx, undefined).documents;
    case 'indexLookup':
      return lookupDocuments(node, ctx);
    case 'indexRange':
      return rangeDocuments(node, ctx);
    default:
      return assertNever(node);
  }
}

/** A test of a condition on one access row's document, or undefined for no condition. */
export type DocumentTest = ((doc: Document) => boolean) | undefined;

/**
 * The test of `condition` for rows of an access path: none when the index read proves it
 * (`proven.ts`), so those documents are not rechecked.
 */
export function documentTest(
  node: AccessNode,
  condition: Condition | undefined,
  ctx: ExecContext,
): DocumentTest {
  if (!condition || indexProves(node, condition, ctx.resolver, ctx.params)) return undefined;
  return documentPredicate(condition, ctx);
}

/**
 * The row document of one stored document (its `_id` attached as the node says), or
 * undefined when the test rejects it.
 */
export function accessDocument(
  node: AccessNode,
  id: Buffer,
  body: Document,
  passes: DocumentTest,
): Document | undefined {
  if (node.id === 'beforeFilter') {
    const doc = withId(id, body);
    return !passes || passes(doc) ? doc : undefined;
  }
  if (passes && !passes(body)) return undefined;
  return node.id === 'afterFilter' ? withId(id, body) : body;
}

/** The row of one stored document, or undefined when the test rejects it. */
export function accessRow(
  node: AccessNode,
  { id, body }: StoredDocument,
  passes: DocumentTest,
): Row | undefined {
  const doc = accessDocument(node, id, body, passes);
  return doc && [doc];
}

/** The rows of an access path that satisfy `condition` (every row when it is undefined). */
export function* accessRows(
  node: AccessNode,
  ctx: ExecContext,
  condition: Condition | undefined,
): Generator<Row> {
  const passes = documentTest(node, condition, ctx);
  const { budget } = ctx;
  if (node.kind === 'scan' && node.id !== 'beforeFilter') {
    const { documents, tested } = scanDocuments(node, ctx, passes);
    if (tested) {
      // The reader ran the test on each sparse copy (ticking the budget): what comes out has
      // passed.
      const attach = node.id === 'afterFilter';
      for (const { id, body } of documents) {
        if (!passes) budget.tick();
        yield [attach ? withId(id, body) : body];
      }
      return;
    }
    for (const found of documents) {
      budget.tick();
      const row = accessRow(node, found, passes);
      if (row) yield row;
    }
    return;
  }
  for (const found of accessDocuments(node, ctx)) {
    budget.tick();
    const row = accessRow(node, found, passes);
    if (row) yield row;
  }
}
