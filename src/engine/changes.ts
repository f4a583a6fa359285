/**
 * The change feed over the change log (`db.changes`): the entries after a seq, then each new
 * one as it commits, optionally of one collection, with the position a consumer resumes from.
 * It checks its arguments and the log's floor at once; it never holds entries from trims.
 */

import { dbError } from '../errors/index.js';
import type { ChangeEntry, LogPosition } from '../storage/index.js';
import { normalizeCollectionName } from '../util/index.js';

/** Options of `db.changes`. */
export interface ChangesOptions {
  /**
   * The feed starts after this seq (an integer ≥ 0; 0 = the whole retained log). Default: the
   * node's last seq when the feed opens, so only writes committed from then on are read.
   */
  since?: number;
  /** Only this collection's entries (any letter case; compared by canonical name). */
  collection?: string;
  /** Ends the feed: a pending read resolves and the iteration finishes. */
  signal?: AbortSignal;
}

/**
 * An open change feed: iterate it once. `position` is where a consumer resumes (`since`):
 * every entry up to it was handed out, or skipped by the collection filter. Inside the loop
 * body it is the seq of the entry being handled: save it after handling that entry.
 */
export interface ChangeFeed extends AsyncIterable<ChangeEntry> {
  /** The seq the feed started after. */
  readonly since: number;
  /** The canonical collection name it is filtered on, if any. */
  readonly collection: string | undefined;
  /**
   * The resume point: every entry up to this seq was handed out or filtered out; in the loop
   * body, the seq of the entry in hand (or of a multi-entry write's part in hand).
   */
  readonly position: number;
}

/** What a feed reads: the Database's change log. */
export interface ChangeLogSource {
  nodeState(): LogPosition;
  followChanges(seq: number, signal?: AbortSignal): AsyncGenerator<ChangeEntry>;
}

/** The seq a feed starts after: `since` checked against the log, or its last seq. */
function checkSince(since: unknown, state: LogPosition): number {
  if (since === undefined) return state.lastSeq;
  if (typeof since !== 'number' || !Number.isSafeInteger(since) || since < 0) {
    throw dbError('ERR_BAD_ARGUMENT', 'since', { since: String(since) }, { parameter: 'since' });
  }
  if (since > state.lastSeq) {
    // A seq this node never wrote: a cursor from another node, or one whose entries were
    // rolled back. Waiting past it would skip whatever this node writes until then.
    throw dbError(
      'ERR_BAD_ARGUMENT',
      'sincePastLast',
      { since, lastSeq: state.lastSeq },
      { parameter: 'since', lastSeq: state.lastSeq },
    );
  }
  if (since < state.seqFloor) {
    throw dbError(
      'ERR_CHANGES_TRIMMED',
      'feedTrimmed',
      { since, seqFloor: state.seqFloor },
      { since, seqFloor: state.seqFloor },
    );
  }
  return since;
}

/**
 * Reads `since` as GET /changes gives it (`NodeApi.changesWithHeartbeats`): a seq in decimal
 * text. The message names the query parameter and the header, the two ways a request sends it.
 */
export function seqOfText(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  if (!/^(0|[1-9][0-9]{0,14})$/.test(since)) {
    throw dbError(
      'ERR_BAD_ARGUMENT',
      'sinceNotSeq',
      { since: since.slice(0, 40) },
      { parameter: 'since' },
    );
  }
  return Number(since);
}

/**
 * Opens a feed: throws ERR_BAD_ARGUMENT (a bad `since`), ERR_COLLECTION_NAME_INVALID (a bad
 * `collection`) or ERR_CHANGES_TRIMMED (`since` below the log's floor) at once. While it is
 * read, a trim past its position (a checkpoint while the consumer lagged) or a snapshot load
 * throws ERR_CHANGES_TRIMMED from the iteration.
 */
export function openChangeFeed(log: ChangeLogSource, options: ChangesOptions = {}): ChangeFeed {
  const since = checkSince(options.since, log.nodeState());
  const collection =
    options.collection === undefined ? undefined : normalizeCollectionName(options.collection);
  const { signal } = options;
  let position = since;
  let started = false;
  async function* entries(): AsyncGenerator<ChangeEntry> {
    for await (const entry of log.followChanges(since, signal)) {
      if (collection !== undefined && entry.collection !== collection) {
        position = entry.seq;
        continue;
      }
      // Before the yield, so the loop body that handles this entry reads its seq as the
      // position and saves it once handled; set after, a resume from that save delivered the
      // handled entry again (issue 23, mend 1).
      position = entry.seq;
      yield entry;
    }
  }
  return {
    since,
    collection,
    get position() {
      return position;
    },
    [Symbol.asyncIterator]() {
      if (started) {
        throw dbError('ERR_BAD_ARGUMENT', 'feedIteratedTwice');
      }
      started = true;
      return entries();
    },
  };
}
