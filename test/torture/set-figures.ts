/**
 * What a set run's attempts and read-back add up to (Jepsen's set workload): which
 * acknowledged keys were lost, and whether a rollback file holds them; which keys are stored
 * twice; which keys only a rollback file holds; the longest time a shard acknowledged nothing;
 * and how long two members of one shard acknowledged writes at once. Pure: it reads records
 * and decides nothing about a run.
 */

import { ackWindows } from './ack-windows.js';
import type { Attempt } from './set-load.js';

/** A stored document as the read-back found it: its `_id`, its key and its shard. */
export interface StoredKey {
  id: string;
  key: string;
  shard: string;
}

export interface SetFigures {
  acknowledged: number;
  refused: number;
  unknown: number;
  /** Unknown writes found stored (the write landed though its answer was lost). */
  unknownStored: number;
  /** Acknowledged keys not stored. */
  lost: string[];
  /** The lost keys a rollback file holds. */
  lostInRollback: string[];
  /** Keys stored under more than one `_id`. */
  duplicated: string[];
  /** Refused writes (never sent) that are stored anyway: a write from nowhere. */
  refusedStored: string[];
  /** Keys a rollback file holds and no shard stores (any outcome). */
  rollbackOnly: string[];
}

/**
 * Judges `attempts` against what the shards store and what the rollback files hold
 * (`rolledBackKeys`). Every acknowledged key must be stored once; a refused one never.
 */
export function judge(
  attempts: readonly Attempt[],
  stored: readonly StoredKey[],
  rolledBackKeys: ReadonlySet<string>,
): SetFigures {
  const idsByKey = new Map<string, Set<string>>();
  for (const { id, key } of stored) {
    const ids = idsByKey.get(key) ?? new Set<string>();
    ids.add(id);
    idsByKey.set(key, ids);
  }
  const figures: SetFigures = {
    acknowledged: 0,
    refused: 0,
    unknown: 0,
    unknownStored: 0,
    lost: [],
    lostInRollback: [],
    duplicated: [],
    refusedStored: [],
    rollbackOnly: [],
  };
  for (const attempt of attempts) {
    const isStored = idsByKey.has(attempt.key);
    if (attempt.outcome === 'acknowledged') {
      figures.acknowledged++;
      if (isStored) continue;
      figures.lost.push(attempt.key);
      if (rolledBackKeys.has(attempt.key)) figures.lostInRollback.push(attempt.key);
    } else if (attempt.outcome === 'refused') {
      figures.refused++;
      if (isStored) figures.refusedStored.push(attempt.key);
    } else {
      figures.unknown++;
      if (isStored) figures.unknownStored++;
    }
  }
  for (const [key, ids] of idsByKey) if (ids.size > 1) figures.duplicated.push(key);
  for (const key of rolledBackKeys) if (!idsByKey.has(key)) figures.rollbackOnly.push(key);
  return figures;
}

/**
 * The longest time each shard acknowledged no write, from the clients' view: the widest gap
 * between two acknowledgements of the shard (by receive time) inside one of `spans` (the
 * times the clients ran), counting from the span's start and to its end too.
 */
export function noLeaderWindows(
  acks: ReadonlyArray<{ shard: string; receivedMs: number }>,
  shards: readonly string[],
  spans: ReadonlyArray<{ startMs: number; endMs: number }>,
): Map<string, number> {
  const widest = new Map<string, number>();
  for (const shard of shards) {
    const times = acks
      .filter((a) => a.shard === shard)
      .map((a) => a.receivedMs)
      .sort((a, b) => a - b);
    let max = 0;
    for (const span of spans) {
      let previous = span.startMs;
      for (const at of times) {
        if (at < span.startMs || at > span.endMs) continue;
        max = Math.max(max, at - previous);
        previous = at;
      }
      max = Math.max(max, span.endMs - previous);
    }
    widest.set(shard, max);
  }
  return widest;
}

/** How long after `fromMs` the shard's next write was acknowledged; undefined when none was. */
export function resumedAfter(
  acks: ReadonlyArray<{ shard: string; receivedMs: number }>,
  shard: string,
  fromMs: number,
): number | undefined {
  let first: number | undefined;
  for (const ack of acks) {
    if (ack.shard !== shard || ack.receivedMs < fromMs) continue;
    if (first === undefined || ack.receivedMs < first) first = ack.receivedMs;
  }
  return first === undefined ? undefined : first - fromMs;
}

/**
 * The two-leader window of one shard: its acknowledged writes, each placed at its commit
 * time on the member that led the entry's term (the server's stamps, one clock for all
 * members of this machine), through ackWindows.
 */
export function twoLeaderWindow(acks: ReadonlyArray<{ member: string; atMs: number }>): {
  ms: number;
  between: string;
} {
  const windows = ackWindows(
    acks.map((a) => ({ node: a.member, sentMs: a.atMs, receivedMs: a.atMs })),
  );
  const between = windows.widest
    ? `${windows.widest[0].node} and ${windows.widest[1].node}`
    : 'none';
  return { ms: windows.twoLeaderMs, between };
}
