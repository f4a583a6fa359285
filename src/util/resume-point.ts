/**
 * Where a consumer of a change feed resumes after a line (docs/changes.md): one rule for the
 * node's and the router's lines alike, so the route's SSE ids and a consumer's saved position
 * never disagree.
 */

import type { ChangeLine } from '../types/index.js';

/**
 * The `since` that resumes after `line`: a router's `cursor` when it has one, else the node's
 * seq as text (an entry's `seq`, a heartbeat's `lastSeq`).
 */
export function resumePoint(line: ChangeLine): string {
  if (line.cursor !== undefined) return line.cursor;
  return String('heartbeat' in line ? line.lastSeq : line.seq);
}
