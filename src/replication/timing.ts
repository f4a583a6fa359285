/**
 * Replication's clocks, as named constants: the heartbeat, how long a handshake or a silent
 * leader is waited for, and the follower's reconnect backoff.
 */

/** A leader sends a heartbeat this often (DESIGN §6: every second). */
export const HEARTBEAT_MS = 1000;
/** Each step of the handshake must come within this. */
export const HANDSHAKE_TIMEOUT_MS = 10_000;
/** A follower that hears nothing for this long (five heartbeats) drops the connection and reconnects. */
export const LEADER_SILENCE_RECONNECT_MS = 5000;
/** How long a follower waits for a connection to open. */
export const CONNECT_TIMEOUT_MS = 5000;
/** The follower's first reconnect delay; it doubles on each failure up to the cap. */
export const RECONNECT_BASE_MS = 200;
export const RECONNECT_CAP_MS = 5000;
/** How often the auto-failover watch looks at the leader's silence. */
export const FAILOVER_CHECK_MS = 200;

/**
 * The delay before reconnect attempt `attempt` (0 first): exponential with full jitter
 * between half and the whole step, so followers of a restarted leader do not all come back
 * in the same instant.
 */
export function reconnectDelayMs(
  attempt: number,
  random: () => number = Math.random,
  capMs: number = RECONNECT_CAP_MS,
): number {
  const step = Math.min(capMs, RECONNECT_BASE_MS * 2 ** Math.min(attempt, 16));
  return Math.round(step * (0.5 + random() / 2));
}

/**
 * The reconnect cap of a follower with an auto-failover silence (0: none): RECONNECT_CAP_MS,
 * or a quarter of the silence when that is shorter, so a watching follower tries its leader
 * again several times before it would promote itself over a short blip of the network.
 */
export function reconnectCapMs(silenceMs: number): number {
  if (silenceMs === 0) return RECONNECT_CAP_MS;
  return Math.max(RECONNECT_BASE_MS, Math.min(RECONNECT_CAP_MS, Math.floor(silenceMs / 4)));
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
