/**
 * The two-leader window of a partition run, computed from the clients' acknowledgement
 * records alone: how long two nodes both acknowledged writes, and how many acknowledgements
 * of one node fell inside another's run of acknowledgements. Pure: it reads records, never a
 * node, and decides nothing about a run.
 */

/**
 * Acknowledgements of one node less than this far apart (by receive time) belong to one stint
 * of that node acknowledging. Clients write back to back, so a node that acknowledges at all
 * does so far more often than this; a longer pause means it stopped.
 */
export const STINT_GAP_MS = 500;

/** One acknowledged write (a 201) as a client saw it, on one clock for every client. */
export interface AckRecord {
  /** The node that answered 201. */
  node: string;
  /** When the client sent the request. */
  sentMs: number;
  /** When the client received the 201. */
  receivedMs: number;
}

/** A run of one node's acknowledgements, each less than STINT_GAP_MS after the one before. */
export interface Stint {
  node: string;
  startMs: number;
  endMs: number;
  acks: number;
}

export interface AckWindows {
  /** The largest overlap of two stints of different nodes, in ms; 0 when none overlap. */
  twoLeaderMs: number;
  /** Acknowledgements whose receive time falls strictly inside a stint of another node. */
  interleaved: number;
  /** The two stints of the largest overlap, when there is one. */
  widest: [Stint, Stint] | undefined;
  stints: Stint[];
}

/** Every node's stints, ordered by start. */
export function stintsOf(records: readonly AckRecord[], gapMs = STINT_GAP_MS): Stint[] {
  const byNode = new Map<string, number[]>();
  for (const record of records) {
    const times = byNode.get(record.node) ?? [];
    times.push(record.receivedMs);
    byNode.set(record.node, times);
  }
  const stints: Stint[] = [];
  for (const [node, times] of byNode) {
    times.sort((a, b) => a - b);
    let current: Stint | undefined;
    for (const at of times) {
      if (current && at - current.endMs < gapMs) {
        current.endMs = at;
        current.acks++;
        continue;
      }
      current = { node, startMs: at, endMs: at, acks: 1 };
      stints.push(current);
    }
  }
  return stints.sort((a, b) => a.startMs - b.startMs || a.node.localeCompare(b.node));
}

/**
 * The two-leader window of `records`. A correct system gives 0 and 0: the old leader's last
 * acknowledgement comes before the new leader's first.
 */
export function ackWindows(records: readonly AckRecord[], gapMs = STINT_GAP_MS): AckWindows {
  const stints = stintsOf(records, gapMs);
  let twoLeaderMs = 0;
  let widest: [Stint, Stint] | undefined;
  for (let i = 0; i < stints.length; i++) {
    const a = stints[i] as Stint;
    for (let j = i + 1; j < stints.length; j++) {
      const b = stints[j] as Stint;
      // Ordered by start: no later stint can overlap a once one starts after a ends.
      if (b.startMs >= a.endMs) break;
      if (b.node === a.node) continue;
      const overlap = Math.min(a.endMs, b.endMs) - b.startMs;
      if (overlap > twoLeaderMs) {
        twoLeaderMs = overlap;
        widest = [a, b];
      }
    }
  }
  let interleaved = 0;
  for (const record of records) {
    const inside = stints.some(
      (s) => s.node !== record.node && s.startMs < record.receivedMs && record.receivedMs < s.endMs,
    );
    if (inside) interleaved++;
  }
  return { twoLeaderMs, interleaved, widest, stints };
}
