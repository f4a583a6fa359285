/**
 * Where two histories part: the last seq a leader's log and a joining node's log share (the
 * fork). The term histories place it first: a promotion makes a term no other promotion
 * makes (terms.ts), so two logs agree at a seq exactly when their histories give it the same
 * term, and since terms never go down along a log, a binary search over the seqs finds the
 * last such seq even where trims took the entries. The hash chain then confirms it where both
 * logs still hold the entry: equal links there mean equal histories up to it. Links that
 * differ (two histories with the same terms, from before terms were unique, or two nodes
 * started apart) send the search down the chain, asking the joining node for its links at a
 * few seqs at a time (`probe`), until two neighbours agree and disagree. Where nothing tells,
 * the fork is unknown. Pure: the leader's session carries the probes over the wire, and
 * `docdb verify --peer` answers them from a second file.
 */

import type { TermRun } from '../types/index.js';

/** Seqs asked for in one probe: each round narrows the search to a 32nd. */
export const PROBE_SEQS_MAX = 32;

/** What the searching side knows of its own log. */
export interface LocalHistory {
  lastSeq: number;
  /** Its lowest retained seq's predecessor: links are known from here up. */
  seqFloor: number;
  runs: readonly TermRun[];
  /** The link (hex) at `seq` while its log retains it; undefined otherwise. */
  chainAt(seq: number): string | undefined;
}

/** What the joining side said of its log. */
export interface RemoteHistory {
  lastSeq: number;
  runs: readonly TermRun[];
  /** Its link at `lastSeq`, when it has one. */
  lastChain?: string | undefined;
}

/** A link the joining side reported at a seq (undefined: it holds none there). */
export interface ChainSample {
  seq: number;
  chain?: string | undefined;
}

/** The search's next step: ask for links, or its answer. */
export type ForkStep =
  | { probe: number[] }
  | { fork: number; by: 'terms' | 'chain' }
  | { fork: undefined; why: string };

/** The term `runs` give `seq`: 0 at seq 0, undefined before the history's first run. */
function termIn(runs: readonly TermRun[], seq: number): number | undefined {
  if (seq === 0) return 0;
  let found: number | undefined;
  for (const run of runs) {
    if (run.from > seq) break;
    found = run.term;
  }
  return found;
}

/**
 * The last seq at or below both logs' ends at which their term histories agree; undefined
 * when they already differ where both histories begin (unless both begin at seq 1, when the
 * fork is 0: nothing shared).
 */
export function forkByTerms(local: RemoteHistory, remote: RemoteHistory): number | undefined {
  const top = Math.min(local.lastSeq, remote.lastSeq);
  if (top === 0) return 0;
  const agrees = (seq: number) => {
    const a = termIn(local.runs, seq);
    return a !== undefined && a === termIn(remote.runs, seq);
  };
  if (agrees(top)) return top;
  const start = Math.max(local.runs[0]?.from ?? top + 1, remote.runs[0]?.from ?? top + 1);
  if (start > top || !agrees(start)) return start === 1 ? 0 : undefined;
  // agrees(low) holds and agrees(high + 1) does not: terms never go down along a log.
  let low = start;
  let high = top - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (agrees(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Up to `count` seqs spread evenly over `from..to`, both ends included, ascending. */
function spread(from: number, to: number, count: number): number[] {
  const span = to - from;
  if (span < 0) return [];
  const n = Math.min(count, span + 1);
  if (n === 1) return [from];
  const seqs = new Set<number>();
  for (let i = 0; i < n; i++) seqs.add(from + Math.round((i * span) / (n - 1)));
  return [...seqs];
}

/**
 * One search for the fork between a leader's log (`local`) and a joining node's (`remote`).
 * Call `next()`; when it asks for a probe, hand the joining node's answer to `take()` and
 * call `next()` again.
 */
export class ForkSearch {
  private readonly remoteChains = new Map<number, string | undefined>();
  private readonly candidate: number | undefined;
  private confirming = true;
  /** The chain search's bounds: the logs agree at `low` (seq 0, the empty log, at first), differ at `high`. */
  private low = 0;
  private high = 0;
  /** The seqs the last probe asked for, to tell whether its answer narrowed anything. */
  private asked: number[] = [];

  constructor(
    private readonly local: LocalHistory,
    remote: RemoteHistory,
  ) {
    if (remote.lastChain !== undefined) this.remoteChains.set(remote.lastSeq, remote.lastChain);
    this.candidate = forkByTerms(local, remote);
  }

  next(): ForkStep {
    const candidate = this.candidate;
    if (candidate === undefined) {
      return {
        fork: undefined,
        why: 'their term histories differ already where both begin: the fork lies before what either node recorded',
      };
    }
    if (this.confirming) return this.confirm(candidate);
    return this.bisect();
  }

  /** Takes the joining node's links at the seqs last asked for. */
  take(samples: readonly ChainSample[]): void {
    for (const { seq, chain } of samples) {
      if (this.asked.includes(seq)) this.remoteChains.set(seq, chain);
    }
  }

  /** Checks the terms' answer against both links at it, where both logs hold them. */
  private confirm(candidate: number): ForkStep {
    if (candidate === 0) return { fork: 0, by: 'terms' };
    const mine = this.local.chainAt(candidate);
    if (mine === undefined) return { fork: candidate, by: 'terms' };
    if (!this.remoteChains.has(candidate)) return this.ask([candidate]);
    const theirs = this.remoteChains.get(candidate);
    if (theirs === undefined) return { fork: candidate, by: 'terms' };
    if (theirs === mine) return { fork: candidate, by: 'chain' };
    // Same terms, different entries: search below by the chain alone.
    this.confirming = false;
    this.high = candidate;
    return this.askBetween(Math.max(1, this.local.seqFloor), candidate - 1);
  }

  private bisect(): ForkStep {
    const before = { low: this.low, high: this.high };
    for (const seq of this.asked) {
      const mine = this.local.chainAt(seq);
      const theirs = this.remoteChains.get(seq);
      if (mine === undefined || theirs === undefined) continue;
      if (mine === theirs) this.low = Math.max(this.low, seq);
      else if (seq > this.low) this.high = Math.min(this.high, seq);
    }
    const { low, high } = this;
    if (high - low <= 1) return { fork: low, by: 'chain' };
    if (low === before.low && high === before.high) return this.belowLinks();
    return this.askBetween(Math.max(low + 1, this.local.seqFloor), high - 1);
  }

  /** Asks for the links at seqs spread over `from..to`, or gives up when that is empty. */
  private askBetween(from: number, to: number): ForkStep {
    if (this.high - this.low <= 1) return { fork: this.low, by: 'chain' };
    const seqs = spread(from, to, PROBE_SEQS_MAX);
    if (seqs.length === 0) return this.belowLinks();
    return this.ask(seqs);
  }

  private belowLinks(): ForkStep {
    return {
      fork: undefined,
      why: `their hash chains differ down to seq ${this.high}, below which the two logs hold no links to compare`,
    };
  }

  private ask(seqs: number[]): ForkStep {
    this.asked = seqs;
    return { probe: seqs };
  }
}
