/**
 * The checks both crash harnesses run on a data directory after the writer died: reopen it,
 * reconcile its documents with the ack model, and check the indexes and the change log
 * (store-checks.ts); a harness may add checks of its own. It also words a cycle's problems
 * for a failure message. It changes nothing in the file beyond what opening it does.
 */

import { type Database, open } from '../../src/index.js';
import type { AckModel } from './ack-model.js';
import { CRASH_COLLECTION, type CrashDoc } from './protocol.js';
import { type ChangeLogState, checkChangeLog, checkIndexes } from './store-checks.js';

/** Problems listed in one failure message; the rest are counted. */
const PROBLEMS_SHOWN_MAX = 12;
/** The end of the writer's stderr a failure message quotes. */
const STDERR_SHOWN_CHARS = 2000;

/** More checks of the reopened file, given its documents by id. */
export type ExtraCheck = (
  db: Database,
  found: Map<string, CrashDoc>,
) => string[] | Promise<string[]>;

/** What checkReopened found. */
export interface ReopenedCheck {
  problems: string[];
  /** Documents in the file, all checked. */
  documents: number;
}

/**
 * Reopens `dir` and checks it: every document against the model (which then adopts them),
 * the indexes against the documents (unless `indexes` is false: the writer may have died
 * before it made them all), the change log since the last check, then `extra`.
 */
export async function checkReopened(
  dir: string,
  model: AckModel,
  changeLog: ChangeLogState,
  options: { indexes?: boolean; extra?: ExtraCheck } = {},
): Promise<ReopenedCheck> {
  const db = await open(dir);
  try {
    const found = new Map<string, CrashDoc>();
    for (const stored of db.collection(CRASH_COLLECTION).scan()) {
      const { _id, ...body } = stored;
      found.set(_id as string, body as CrashDoc);
    }
    const problems = model.reconcile(found);
    if (options.indexes !== false) problems.push(...checkIndexes(db, found));
    const counts = model.cycleCounts;
    problems.push(
      ...checkChangeLog(db, changeLog, found, counts.ackedChanges + counts.inFlightLanded),
    );
    if (options.extra) problems.push(...(await options.extra(db, found)));
    return { problems, documents: found.size };
  } finally {
    await db.close();
  }
}

/** A cycle's problems as an indented list (the first few), then the writer's stderr. */
export function describeProblems(problems: readonly string[], stderr: string): string {
  const shown = problems.slice(0, PROBLEMS_SHOWN_MAX).map((p) => `  - ${p}`);
  if (problems.length > PROBLEMS_SHOWN_MAX)
    shown.push(`  … and ${problems.length - PROBLEMS_SHOWN_MAX} more`);
  const tail = stderr.trim() ? `\nwriter stderr:\n${stderr.trim().slice(-STDERR_SHOWN_CHARS)}` : '';
  return `${shown.join('\n')}${tail}`;
}
