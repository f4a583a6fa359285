/**
 * The client's side of GET /changes: the feed's NDJSON as values, heartbeats kept or hidden,
 * the error line a feed may end with thrown as its DbError, and a signal that hangs up. It
 * reads one line at a time, so a consumer that stops pulling holds the node back (TCP).
 */

import { DbError, type ErrorCode } from '../errors/index.js';
import type { ChangeFeedOptions, ChangeHeartbeat, ErrorBody, FeedEntry } from '../types/index.js';
import { ndjsonValues } from './ndjson.js';
import type { Call, Transport } from './transport.js';

/**
 * Options of `client.changes` and `client.changesWithHeartbeats`: those of every feed
 * (types' ChangeFeedOptions; `heartbeatMs` is the server's here), and `since` as a number too.
 */
export interface ChangesOptions extends Omit<ChangeFeedOptions, 'since'> {
  /**
   * Start after this point: a node's seq (0 = the whole retained log), or a router's cursor
   * (a line's `cursor`, or a heartbeat's). Default: from now.
   */
  since?: number | string;
}

/** The query string of GET /changes. */
function changesPath(options: ChangesOptions): string {
  const query = new URLSearchParams();
  if (options.since !== undefined) query.set('since', String(options.since));
  if (options.collection !== undefined) query.set('collection', options.collection);
  return query.size > 0 ? `/changes?${query}` : '/changes';
}

function isHeartbeat(value: unknown): value is ChangeHeartbeat {
  return typeof (value as ChangeHeartbeat).heartbeat === 'number';
}

/** The feed's last line when it ended on an error (a trim past it, the node closing). */
function feedError(value: unknown): DbError | undefined {
  const body = value as Partial<ErrorBody>;
  if (typeof body.code !== 'string' || typeof body.error !== 'string') return undefined;
  const { error, code, ...details } = body as ErrorBody;
  return new DbError(code as ErrorCode, error, details);
}

/**
 * Follows GET /changes: yields each entry, and each heartbeat too when `heartbeats`. A 400
 * or 410 (ERR_CHANGES_TRIMMED: resync, then follow from a fresh point) throws before the
 * first value. Holds one pooled connection while it runs.
 */
export async function* followFeed(
  transport: Transport,
  options: ChangesOptions,
  heartbeats: boolean,
): AsyncGenerator<FeedEntry | ChangeHeartbeat, void, undefined> {
  const { signal } = options;
  if (signal?.aborted) return;
  const call: Call = { method: 'GET', path: changesPath(options), accept: 'application/x-ndjson' };
  const where = transport.urlOf(call);
  const answer = await transport.open(call);
  answer.settle();
  const hangUp = () => answer.body.destroy();
  signal?.addEventListener('abort', hangUp, { once: true });
  try {
    for await (const value of ndjsonValues(answer.body, where)) {
      if (isHeartbeat(value)) {
        if (heartbeats) yield value;
        continue;
      }
      const failure = feedError(value);
      if (failure) throw failure;
      yield value as FeedEntry;
    }
  } catch (error) {
    // After a hang-up the stream's own error is the hang-up: the iteration just ends.
    if (signal?.aborted) return;
    throw transport.failure(call, error);
  } finally {
    signal?.removeEventListener('abort', hangUp);
    answer.body.destroy();
  }
}
