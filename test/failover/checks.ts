/**
 * What the failover run checks once two nodes are quiet and caught up: that they hold the
 * same documents, byte for byte as JSON, and which acknowledged writes one of them lacks. It
 * only reads; the phases decide what a finding means.
 */

import { type DocdbNode, FailoverCheckError } from './cluster.js';
import { LOAD_COLLECTION } from './load.js';

/** Problems named in one failure message; the rest are counted. */
const SHOWN_MAX = 8;

/** The acknowledged `_id`s that `documents` lacks. */
export function missingFrom(acknowledged: Iterable<string>, documents: Map<string, string>) {
  const missing: string[] = [];
  for (const id of acknowledged) if (!documents.has(id)) missing.push(id);
  return missing;
}

/** Fails unless both nodes hold exactly the same documents; answers them. */
export async function sameDocuments(a: DocdbNode, b: DocdbNode): Promise<Map<string, string>> {
  const [onA, onB] = await Promise.all([
    a.documents(LOAD_COLLECTION),
    b.documents(LOAD_COLLECTION),
  ]);
  const problems: string[] = [];
  for (const [id, json] of onA) {
    const other = onB.get(id);
    if (other === undefined) problems.push(`${id} is on ${a.name} only`);
    else if (other !== json) problems.push(`${id} differs: ${a.name} ${json}, ${b.name} ${other}`);
  }
  for (const id of onB.keys()) if (!onA.has(id)) problems.push(`${id} is on ${b.name} only`);
  if (problems.length > 0) {
    throw new FailoverCheckError(
      `${a.name} (${onA.size} documents) and ${b.name} (${onB.size}) differ in ${problems.length} documents:\n  ${problems.slice(0, SHOWN_MAX).join('\n  ')}`,
    );
  }
  return onA;
}

/** Lists a few ids for a message. */
export function someIds(ids: readonly string[]): string {
  const shown = ids.slice(0, SHOWN_MAX).join(', ');
  return ids.length > SHOWN_MAX ? `${shown} and ${ids.length - SHOWN_MAX} more` : shown;
}
