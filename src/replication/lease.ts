/**
 * A leader's lease from its auto-failover followers, so that two nodes never acknowledge
 * writes at once. A follower that watches its leader promotes itself once it has heard
 * nothing for its silence S; it tells the leader S in its hello and in every ack, and each ack
 * echoes the leader's clock reading of the last heartbeat it received (`echoMs`). The
 * follower heard that heartbeat after the leader sent it, so it cannot promote itself before
 * echoMs + S; the leader stops acknowledging at echoMs + S − margin, the margin covering a
 * stalled event loop and the time between the check and the answer. With several such
 * followers the lease holds only while every one of them holds it: any one may promote.
 *
 * The holders are written to `<data-dir>/replication-lease.json` as they change, before the
 * follower hears the welcome that arms its watch, so a leader that restarts still waits for
 * them (lapsed until heard from again) instead of acknowledging alone while one of them may
 * be promoting itself. A follower that stops watching, or stops following on its own, says so
 * and is released; one that is gone for good is released by hand (POST
 * /replication/forget-follower). A node that follows another forgets its holders.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { type DbError, dbError } from '../errors/index.js';
import type { LeaseView } from '../types/index.js';
import { removeFileDurably, writeFileDurably } from '../util/index.js';

/** The file of a data directory that records a leader's lease holders. */
export const LEASE_FILE = 'replication-lease.json';

/** The smallest margin between a lease's end and the earliest promotion it guards against. */
export const LEASE_MARGIN_MIN_MS = 250;
/** The margin as a share of the follower's silence, when that is more than the minimum. */
export const LEASE_MARGIN_SHARE = 0.25;
/** The shortest heartbeat period a leader uses for a follower with a short silence. */
export const HEARTBEAT_MIN_MS = 50;
/** Heartbeats a leader sends within one lease, so one lost or late renews it in time. */
const HEARTBEATS_PER_LEASE = 4;

/** How long before a follower with `silenceMs` may promote itself the leader stops. */
export function leaseMarginMs(silenceMs: number): number {
  return Math.max(LEASE_MARGIN_MIN_MS, Math.round(silenceMs * LEASE_MARGIN_SHARE));
}

/** The heartbeat period for a follower with `silenceMs` (0: no auto-failover): `usualMs` or less. */
export function heartbeatPeriodMs(silenceMs: number, usualMs: number): number {
  if (silenceMs === 0) return usualMs;
  const lease = silenceMs - leaseMarginMs(silenceMs);
  return Math.min(usualMs, Math.max(HEARTBEAT_MIN_MS, Math.floor(lease / HEARTBEATS_PER_LEASE)));
}

interface Holder {
  silenceMs: number;
  /** The leader's clock reading (performance.now) at which the lease from it ends. */
  untilMs: number;
  /** When it was last heard from (wall clock), or null since this process started. */
  heardAt: string | null;
}

interface LeaseRecord {
  holders: Array<{ name: string; silenceMs: number }>;
}

export class Lease {
  private readonly holders = new Map<string, Holder>();
  private readonly file: string;

  constructor(
    dataDir: string,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.file = path.join(dataDir, LEASE_FILE);
  }

  /** Reads the recorded holders, each lapsed until it is heard from again. */
  load(): void {
    this.holders.clear();
    let record: LeaseRecord;
    try {
      record = JSON.parse(fs.readFileSync(this.file, 'utf8')) as LeaseRecord;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw dbError('ERR_CONFIG_INVALID', 'leaseUnreadable', {
        file: this.file,
        cause: (error as Error).message,
      });
    }
    for (const { name, silenceMs } of record.holders ?? []) {
      if (typeof name === 'string' && Number.isSafeInteger(silenceMs) && silenceMs > 0) {
        this.holders.set(name, { silenceMs, untilMs: Number.NEGATIVE_INFINITY, heardAt: null });
      }
    }
  }

  /**
   * A follower said hello: with a silence it holds the lease from now on (lapsed until its
   * first ack renews it); without one (0) it no longer does. Written before it is welcomed.
   */
  join(name: string, silenceMs: number): void {
    if (silenceMs === 0) {
      this.release(name);
      return;
    }
    const held = this.holders.get(name);
    this.holders.set(name, {
      silenceMs,
      untilMs: held?.untilMs ?? Number.NEGATIVE_INFINITY,
      heardAt: held?.heardAt ?? null,
    });
    if (held?.silenceMs !== silenceMs) this.save();
  }

  /**
   * An ack from `name`: `silenceMs` its silence now (0: it stopped watching), `echoMs` the
   * leader's clock reading of the last heartbeat it had received.
   */
  renew(name: string, silenceMs: number, echoMs: number | undefined): void {
    if (silenceMs === 0) {
      this.release(name);
      return;
    }
    const held = this.holders.get(name);
    if (!held || held.silenceMs !== silenceMs) this.join(name, silenceMs);
    const holder = this.holders.get(name) as Holder;
    if (echoMs === undefined) return;
    // An echo cannot come from the future; one that claims to does not lengthen the lease.
    const sentMs = Math.min(echoMs, this.now());
    holder.untilMs = Math.max(holder.untilMs, sentMs + silenceMs - leaseMarginMs(silenceMs));
    holder.heardAt = new Date().toISOString();
  }

  /** Stops holding the lease from `name`; false when it held none. */
  release(name: string): boolean {
    if (!this.holders.delete(name)) return false;
    this.save();
    return true;
  }

  /** Forgets every holder (this node follows another now). */
  clear(): void {
    this.holders.clear();
    removeFileDurably(this.file);
  }

  /** True when the lease from `name` is recorded: its watch may promote it. */
  holds(name: string): boolean {
    return this.holders.has(name);
  }

  /** Undefined while this leader may acknowledge writes; otherwise why it may not. */
  lapsed(): DbError | undefined {
    const now = this.now();
    const late = [...this.holders].filter(([, holder]) => now >= holder.untilMs);
    if (late.length === 0) return undefined;
    const [name, holder] = late[0] as [string, Holder];
    const heard =
      holder.heardAt === null ? 'since this node started leading' : `since ${holder.heardAt}`;
    const others = late.length > 1 ? ` (and ${late.length - 1} more auto-failover followers)` : '';
    const values = {
      name,
      others,
      heard,
      silenceSeconds: holder.silenceMs / 1000,
      body: JSON.stringify({ name }),
    };
    return dbError('ERR_REPLICATION_NO_LEASE', 'lapsed', values, { role: 'leader' });
  }

  /** The lease as status shows it. */
  view(): LeaseView {
    const now = this.now();
    const holders = [...this.holders].map(([name, holder]) => ({
      name,
      silenceSeconds: holder.silenceMs / 1000,
      marginMs: leaseMarginMs(holder.silenceMs),
      lastHeardAt: holder.heardAt,
      validForMs: Math.max(0, Math.round(holder.untilMs - now)),
    }));
    return {
      required: holders.length > 0,
      valid: this.lapsed() === undefined,
      holders,
    };
  }

  /** Writes the holders durably (the record goes when there are none). */
  private save(): void {
    const record: LeaseRecord = {
      holders: [...this.holders].map(([name, { silenceMs }]) => ({ name, silenceMs })),
    };
    if (record.holders.length === 0) removeFileDurably(this.file);
    else writeFileDurably(this.file, `${JSON.stringify(record)}\n`);
  }
}
