/**
 * Auto-failover's watch: while a follower watches its leader, it looks every
 * FAILOVER_CHECK_MS at how long the leader has been silent, and once that is the watch's
 * silence, and the follower is armed (its leader holds its lease: lease.ts), it says so,
 * once. It decides when; replication.ts promotes.
 */

import type { ReplicationFollower } from './follower.js';
import { FAILOVER_CHECK_MS } from './timing.js';

export class SilenceWatch {
  /** performance.now() when the watch began: a leader never heard counts from here. */
  private readonly startedMs = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly silenceSeconds: number,
    readonly newLeaderPort: number,
    private readonly follower: () => ReplicationFollower | undefined,
    /** The leader has been silent `silentMs`: called once, after which the watch is stopped. */
    private readonly onSilent: (silentMs: number) => void,
  ) {
    this.timer = setInterval(() => this.look(), FAILOVER_CHECK_MS);
    this.timer.unref();
  }

  get silenceMs(): number {
    return this.silenceSeconds * 1000;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private look(): void {
    const follower = this.follower();
    if (!follower) return;
    const silentMs = performance.now() - Math.max(follower.lastContactMs, this.startedMs);
    if (silentMs < this.silenceMs) return;
    // A follower whose lease the leader never recorded may be the one cut off, while the
    // leader still acknowledges writes: it does not promote itself.
    if (!follower.armed) return;
    this.stop();
    this.onSilent(silentMs);
  }
}
