/**
 * Rollback files: when a demoted leader rejoins as a follower, the entries it wrote that the
 * new leader never had are undone (the follower reloads the leader's snapshot) and first
 * written here, under `<data-dir>/rollback/`, one NDJSON file per rollback, as MongoDB does.
 * Nothing is merged back silently; an operator reads the file and decides.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChangeEntry, RollbackRecord } from '../types/index.js';
import { fsyncDirectory, makeDirectoryDurably } from '../util/index.js';

/** The directory of rollback files in a data directory. */
export const ROLLBACK_DIR = 'rollback';

export type { RollbackRecord } from '../types/index.js';

/**
 * Writes `entries` (the node's own, after `after`) to a new rollback file, durably, and
 * answers what it wrote. The first line describes the rollback; each further line is one
 * change-log entry as JSON, documents whole.
 */
export function writeRollbackFile(
  dataDir: string,
  details: { node: string; after: number; leader: string; leaderTerm: number },
  entries: readonly ChangeEntry[],
): RollbackRecord {
  const dir = path.join(dataDir, ROLLBACK_DIR);
  makeDirectoryDurably(dir);
  const through = entries.at(-1)?.seq ?? details.after;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = path.join(dir, `${stamp}-seq-${details.after + 1}-${through}.ndjson`);
  const header = {
    rollback: {
      node: details.node,
      rolledBackAt: new Date().toISOString(),
      after: details.after,
      through,
      entries: entries.length,
      newLeader: details.leader,
      newLeaderTerm: details.leaderTerm,
      why: 'these entries were written by this node as a leader and never reached the leader that replaced it',
    },
  };
  const lines = [header, ...entries].map((line) => JSON.stringify(line));
  const fd = fs.openSync(file, 'wx');
  try {
    fs.writeSync(fd, `${lines.join('\n')}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fsyncDirectory(dir);
  return { file, after: details.after, through, entries: entries.length };
}
