/**
 * A change feed's heartbeats (docs/changes.md): one at once, then one after each silence,
 * woven between the lines of a feed that a node or a router opens in this process. It times,
 * weaves and closes; what a line or a heartbeat says is the opener's.
 */

/** How long a feed stays silent before it sends a heartbeat (a named constant, DESIGN §9). */
export const CHANGES_HEARTBEAT_MS = 5_000;

/** What `heartbeatFeed` weaves: an open feed's lines, and the heartbeat of the moment. */
export interface OpenedFeed<L, H> {
  /** Iterated once; it must end when the signal given to the opener aborts. */
  lines: AsyncIterable<L>;
  /** The heartbeat now, saying where the feed stands (every line up to it sent or skipped). */
  heartbeat(): H;
}

/** Options of heartbeatFeed. */
export interface HeartbeatFeedOptions {
  /** Silence before a heartbeat (default CHANGES_HEARTBEAT_MS). */
  heartbeatMs?: number | undefined;
  /** Ends the feed, even while a read waits: the iteration just finishes. */
  signal?: AbortSignal | undefined;
}

const TICK = Symbol('tick');

/**
 * Opens a feed on the first read (so its refusal throws from that read) and yields a
 * heartbeat at once (where the feed starts), then each line as it comes, and a heartbeat
 * after `heartbeatMs` without a line, until the lines end or `signal` aborts; a failure of the
 * lines throws. One read of the lines at most is pending, so a consumer that stops pulling
 * holds the feed back. The opener's signal aborts when the consumer leaves (`return()` or
 * `signal`), so a read that waits for a commit ends then too.
 */
export async function* heartbeatFeed<L, H>(
  open: (signal: AbortSignal) => OpenedFeed<L, H> | Promise<OpenedFeed<L, H>>,
  options: HeartbeatFeedOptions = {},
): AsyncGenerator<L | H, void, undefined> {
  const heartbeatMs = options.heartbeatMs ?? CHANGES_HEARTBEAT_MS;
  if (options.signal?.aborted) return;
  const stop = new AbortController();
  let wake: (() => void) | undefined;
  const onAbort = () => {
    stop.abort();
    wake?.();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let source: AsyncIterator<L> | undefined;
  let pending: Promise<IteratorResult<L>> | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const feed = await open(stop.signal);
    source = feed.lines[Symbol.asyncIterator]();
    yield feed.heartbeat();
    let quietSince = performance.now();
    while (!stop.signal.aborted) {
      pending ??= source.next();
      const wait = Math.max(0, heartbeatMs - (performance.now() - quietSince));
      const tick = new Promise<typeof TICK>((resolve) => {
        wake = () => resolve(TICK);
        timer = setTimeout(wake, wait);
      });
      const got = await Promise.race([pending, tick]);
      clearTimeout(timer);
      if (stop.signal.aborted || (got !== TICK && got.done)) break;
      if (got === TICK) {
        yield feed.heartbeat();
      } else {
        pending = undefined;
        yield got.value;
      }
      quietSince = performance.now();
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    // The pending read settles once the lines see the abort; nothing waits for it then.
    stop.abort();
    pending?.catch(() => {});
    await source?.return?.();
  }
}
