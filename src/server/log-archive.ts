/**
 * The node's change-log archive (`backup.logArchiveDir`): copies each committed change-log
 * entry, in seq order, into NDJSON segments (engine/log-segments.ts) that point-in-time
 * recovery replays after a backup. It holds the entries it has not archived yet from the
 * log's trims, and refuses at start an archive of another history. It never writes the
 * data file.
 */

import { lastSegmentEntry, SegmentWriter } from '../engine/index.js';
import { dbError } from '../errors/index.js';
import type { Store } from '../storage/index.js';

/** Entries archived per write (one append and one sync each). */
const ARCHIVE_BATCH_ENTRIES = 1000;

/** The pause before trying again after a failed write of the archive (a full disk). */
const ARCHIVE_RETRY_MS = 1000;

/** Where archive messages go (the node's log). */
export interface ArchiveLog {
  warn(message: string): void;
  error(message: string): void;
}

/** A running archive; `archivedSeq` is the newest entry written to it. */
export interface LogArchive {
  readonly archivedSeq: number;
  /**
   * Resolves once every entry committed up to now is in the archive (tests, shutdown), or
   * once a write of the archive failed.
   */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts archiving the change log of `store` (the node's, `Database.store`) into `dir`;
 * rejects an archive of another history.
 */
export function startLogArchive(store: Store, dir: string, log: ArchiveLog): LogArchive {
  const last = lastSegmentEntry(dir);
  const position = store.nodeState();
  if (last && last.seq > position.lastSeq) {
    throw dbError(
      'ERR_CONFIG_INVALID',
      'logArchiveAhead',
      { dir, seq: last.seq, lastSeq: position.lastSeq },
      { dir: dir },
    );
  }
  const term = last && store.termAt(last.seq);
  if (last && term !== undefined && term !== last.term) {
    throw dbError(
      'ERR_CONFIG_INVALID',
      'logArchiveOtherTerm',
      { dir, seq: last.seq, term: last.term, ourTerm: term },
      { dir: dir },
    );
  }
  const writer = new SegmentWriter(dir);
  let archived = last?.seq ?? position.seqFloor;
  const hold = store.holdChanges(archived);
  const stop = new AbortController();
  let idle: Array<() => void> = [];

  const archiveOnce = async (): Promise<boolean> => {
    const { seqFloor, lastSeq } = store.nodeState();
    if (archived < seqFloor) {
      log.error(
        `log archive ${dir}: entries ${archived + 1} to ${seqFloor} were trimmed before they were archived; a restore cannot replay across them`,
      );
      archived = seqFloor;
    }
    if (lastSeq <= archived) return false;
    const batch = [];
    for (const entry of store.changesAfter(archived)) {
      batch.push(entry);
      if (batch.length >= ARCHIVE_BATCH_ENTRIES) break;
    }
    if (batch.length === 0) return false;
    await writer.append(batch);
    archived = batch.at(-1)?.seq as number;
    hold.move(archived);
    return true;
  };

  const run = async () => {
    while (!stop.signal.aborted) {
      try {
        if (await archiveOnce()) continue;
      } catch (error) {
        log.error(`log archive ${dir}: ${(error as Error).message}; trying again`);
        // A shutdown waiting for the archive goes on: the node's log keeps what is not
        // archived yet, and the next start archives it.
        for (const wake of idle.splice(0)) wake();
        await new Promise((resolve) => setTimeout(resolve, ARCHIVE_RETRY_MS));
        continue;
      }
      for (const wake of idle.splice(0)) wake();
      await store.whenCommittedAfter(archived, stop.signal).catch(() => stop.abort());
    }
    for (const wake of idle.splice(0)) wake();
  };
  const running = run();

  return {
    get archivedSeq() {
      return archived;
    },
    caughtUp() {
      if (stop.signal.aborted || archived >= store.nodeState().lastSeq) return Promise.resolve();
      return new Promise<void>((resolve) => idle.push(resolve));
    },
    async close() {
      stop.abort();
      await running;
      hold.release();
      idle = [];
    },
  };
}
