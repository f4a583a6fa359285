/**
 * An etcd lease kept alive, and the local deadline until which its holder may rely on it
 * (`validUntil`, the write-stop clock; the argument is in leadership.ts). It renews the lease,
 * moves the deadline only by renewals etcd answered, and reports the lease lost once the
 * deadline passes or etcd says the lease is gone. It never decides what the lease guards.
 */

import { performance } from 'node:perf_hooks';
import type { EtcdClient } from './etcd-client.js';
import { type LeaseTiming, renewPeriodMs } from './lease-timing.js';

/** How soon a failed renewal is tried again. */
const RETRY_MS = 250;

/** Why a kept lease ended. */
export type LeaseEnd =
  | { kind: 'expired'; detail: string }
  | { kind: 'revoked-by-etcd'; detail: string }
  | { kind: 'released'; detail: string };

/** A lease granted by etcd and renewed until it is lost or released. */
export class KeptLease {
  /** Local monotonic time (performance.now) after which the lease may be gone on etcd. */
  private validUntilMs: number;
  private ended: LeaseEnd | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private lostTimer: NodeJS.Timeout | undefined;
  private readonly endListeners: Array<(end: LeaseEnd) => void> = [];
  /** The last renewal error, for the detail of an expiry. */
  private lastError = '';

  private constructor(
    private readonly client: EtcdClient,
    private readonly timing: LeaseTiming,
    readonly id: string,
    private readonly ttlMs: number,
    sentAtMs: number,
  ) {
    this.validUntilMs = sentAtMs + ttlMs - timing.marginMs;
    this.armLostTimer();
    this.scheduleRenewal();
  }

  /**
   * Grants a lease of `timing.ttlSeconds` and starts renewing it. The deadline counts from
   * when the grant was sent: etcd started the TTL after it received the request.
   */
  static async grant(client: EtcdClient, timing: LeaseTiming): Promise<KeptLease> {
    const sentAtMs = performance.now();
    const granted = await client.grantLease(timing.ttlSeconds);
    return new KeptLease(client, timing, granted.id, granted.ttlSeconds * 1000, sentAtMs);
  }

  /** The local deadline (performance.now milliseconds) until which the lease holds. */
  get validUntil(): number {
    return this.validUntilMs;
  }

  /** True while the lease has not ended and its deadline has not passed, checked now. */
  isValid(): boolean {
    return this.ended === undefined && performance.now() < this.validUntilMs;
  }

  /** Why the lease ended, or undefined while it is kept. */
  get end(): LeaseEnd | undefined {
    return this.ended;
  }

  /** Calls `listener` once when the lease ends (at once if it has). */
  onEnd(listener: (end: LeaseEnd) => void): void {
    if (this.ended) listener(this.ended);
    else this.endListeners.push(listener);
  }

  /** Stops renewing and revokes the lease on etcd (best effort: it expires anyway). */
  async revoke(): Promise<void> {
    this.finish({ kind: 'released', detail: 'released by its holder' });
    await this.client.revokeLease(this.id).catch(() => {});
  }

  private scheduleRenewal(): void {
    this.renewTimer = setTimeout(() => void this.renew(), renewPeriodMs(this.timing));
  }

  private async renew(): Promise<void> {
    if (this.ended) return;
    const sentAtMs = performance.now();
    // A renewal answered after the deadline cannot help: the holder has stopped already.
    const timeoutMs = Math.max(
      1,
      Math.min(this.timing.callTimeoutMs, this.validUntilMs - sentAtMs),
    );
    let failed = false;
    try {
      const ttlSeconds = await this.client.renewLease(this.id, timeoutMs);
      if (this.ended) return;
      if (ttlSeconds <= 0) {
        this.finish({ kind: 'revoked-by-etcd', detail: `etcd no longer has lease ${this.id}` });
        return;
      }
      // etcd restarted the TTL when the request reached it, after it was sent: counting from
      // the sending is never later than etcd's own expiry.
      this.validUntilMs = Math.max(
        this.validUntilMs,
        sentAtMs + ttlSeconds * 1000 - this.timing.marginMs,
      );
      this.armLostTimer();
    } catch (error) {
      failed = true;
      this.lastError = (error as Error).message;
    }
    if (this.ended) return;
    if (performance.now() >= this.validUntilMs) {
      this.expire();
      return;
    }
    // After a failure, try again soon (but not in a tight loop): the deadline is closer.
    const period = renewPeriodMs(this.timing);
    const waitMs = failed ? Math.min(RETRY_MS, period) : period;
    this.renewTimer = setTimeout(() => void this.renew(), waitMs);
  }

  private armLostTimer(): void {
    clearTimeout(this.lostTimer);
    const left = this.validUntilMs - performance.now();
    this.lostTimer = setTimeout(() => this.expire(), Math.max(0, left));
  }

  private expire(): void {
    if (this.ended) return;
    if (performance.now() < this.validUntilMs) {
      this.armLostTimer();
      return;
    }
    const why = this.lastError ? `; the last renewal failed: ${this.lastError}` : '';
    this.finish({
      kind: 'expired',
      detail: `lease ${this.id} was not renewed within its TTL (${this.ttlMs} ms) less the write-stop margin (${this.timing.marginMs} ms)${why}`,
    });
  }

  private finish(end: LeaseEnd): void {
    if (this.ended) return;
    this.ended = end;
    clearTimeout(this.renewTimer);
    clearTimeout(this.lostTimer);
    for (const listener of this.endListeners.splice(0)) listener(end);
  }
}
