/**
 * The coordinator's clocks as settings with their defaults and checks: the lease TTL, the
 * write-stop margin, the call timeout, how often a member publishes its position and how long
 * an election settles. Pure; the clock argument that ties them together is in leadership.ts.
 */

import { dbError } from '../errors/index.js';

// The TTL's bounds and default live in util/limits.ts, where a node's settings table reads them
// without loading this module.
import {
  LEASE_TTL_SECONDS_DEFAULT,
  LEASE_TTL_SECONDS_MAX,
  LEASE_TTL_SECONDS_MIN,
} from '../util/index.js';

export { LEASE_TTL_SECONDS_DEFAULT, LEASE_TTL_SECONDS_MAX, LEASE_TTL_SECONDS_MIN };

/** The smallest write-stop margin (a stalled event loop, a slow disk flush, clock rate drift). */
export const WRITE_STOP_MARGIN_MIN_MS = 1000;
/** The write-stop margin as a share of the TTL, when that is more than the minimum. */
export const WRITE_STOP_MARGIN_SHARE = 0.25;

/** How long one etcd call may take before it fails (ERR_COORDINATOR_UNREACHABLE). */
export const CALL_TIMEOUT_MS_DEFAULT = 2000;
/**
 * How often at most a member writes its position to etcd. Each write is one etcd revision,
 * and revisions are the terms' rounds (TERM_ROUND_MAX, about 537 million): six members under
 * constant writes use them up in 14 years at 5 s, in under 3 at 1 s. Elections do not wait
 * for it: a member publishes at once when the leader key is gone.
 */
export const PUBLISH_INTERVAL_MS_DEFAULT = 5000;
/** How long a member waits, once the leader key is gone, for the others' last positions. */
export const SETTLE_MS_DEFAULT = 500;
/** Lease renewals sent within one lease's validity, so one lost or late still renews in time. */
export const RENEWALS_PER_LEASE = 3;

/** The coordinator's timing, all in force together; `leaseTiming` fills and checks it. */
export interface LeaseTiming {
  ttlSeconds: number;
  /** How long before etcd could expire the lease its holder stops acknowledging. */
  marginMs: number;
  callTimeoutMs: number;
  publishIntervalMs: number;
  settleMs: number;
}

/** The default write-stop margin for a TTL: max(1 s, TTL / 4). */
export function writeStopMarginMs(ttlSeconds: number): number {
  return Math.max(
    WRITE_STOP_MARGIN_MIN_MS,
    Math.round(ttlSeconds * 1000 * WRITE_STOP_MARGIN_SHARE),
  );
}

/**
 * The timing with defaults filled in. Throws ERR_CONFIG_INVALID naming the setting when one
 * is out of range: the TTL from LEASE_TTL_SECONDS_MIN to _MAX whole seconds (etcd counts
 * whole seconds), the margin positive and at most half the TTL (a lease that is valid for
 * less than half its TTL spends its life renewing), a call timeout positive and shorter than
 * the time left after the margin (a renewal that outlives it could not help).
 */
export function leaseTiming(options: Partial<LeaseTiming> = {}): LeaseTiming {
  const ttlSeconds = options.ttlSeconds ?? LEASE_TTL_SECONDS_DEFAULT;
  if (
    !Number.isInteger(ttlSeconds) ||
    ttlSeconds < LEASE_TTL_SECONDS_MIN ||
    ttlSeconds > LEASE_TTL_SECONDS_MAX
  ) {
    throw dbError('ERR_CONFIG_INVALID', 'leaseTtl', {
      min: LEASE_TTL_SECONDS_MIN,
      max: LEASE_TTL_SECONDS_MAX,
      ttlSeconds,
    });
  }
  const ttlMs = ttlSeconds * 1000;
  const marginMs = options.marginMs ?? writeStopMarginMs(ttlSeconds);
  if (!Number.isInteger(marginMs) || marginMs <= 0 || marginMs > ttlMs / 2) {
    throw dbError('ERR_CONFIG_INVALID', 'writeStopMargin', { ttlMs: ttlMs / 2, marginMs });
  }
  const callTimeoutMs = options.callTimeoutMs ?? CALL_TIMEOUT_MS_DEFAULT;
  if (!Number.isInteger(callTimeoutMs) || callTimeoutMs <= 0 || callTimeoutMs >= ttlMs - marginMs) {
    throw dbError('ERR_CONFIG_INVALID', 'callTimeout', { ttlMs: ttlMs - marginMs, callTimeoutMs });
  }
  const publishIntervalMs = positive(
    'publish interval',
    options.publishIntervalMs,
    PUBLISH_INTERVAL_MS_DEFAULT,
  );
  const settleMs = positive('election settle time', options.settleMs, SETTLE_MS_DEFAULT);
  return { ttlSeconds, marginMs, callTimeoutMs, publishIntervalMs, settleMs };
}

/** How often a lease holder renews: its validity split into RENEWALS_PER_LEASE parts. */
export function renewPeriodMs(timing: LeaseTiming): number {
  return Math.floor((timing.ttlSeconds * 1000 - timing.marginMs) / RENEWALS_PER_LEASE);
}

function positive(what: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < 0) {
    throw dbError('ERR_CONFIG_INVALID', 'coordinatorMs', { what, chosen });
  }
  return chosen;
}
