/**
 * Proves the fork search on random histories with forks at random points: two logs that share
 * a prefix and then go apart (or one that is a prefix of the other). With unique terms (each
 * side's entries after the fork in a term of its own) the search finds the fork exactly
 * wherever each log's floor is, from the term histories alone where the links are trimmed.
 * With the same terms on both sides (histories from before unique terms) it finds the fork
 * by the hash chain whenever both logs still hold the links from the fork up, and says it
 * cannot place it otherwise, never a wrong seq. It ends in a few probes of a few seqs each.
 */

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TermRun } from '../types/index.js';
import {
  type ChainSample,
  ForkSearch,
  type ForkStep,
  forkByTerms,
  PROBE_SEQS_MAX,
} from './fork.js';

interface Entry {
  term: number;
  chain: string;
}

/** A log: its entries (seq i + 1 at index i), the floor below which links are trimmed. */
interface Log {
  entries: Entry[];
  floor: number;
}

function link(previous: string, content: string): string {
  return createHash('sha256').update(previous).update(content).digest('hex').slice(0, 32);
}

/** Appends entries of `terms`, each with content unique to `side`. */
function grow(entries: Entry[], terms: number[], side: string): Entry[] {
  const out = [...entries];
  for (const term of terms) {
    const previous = out.at(-1)?.chain ?? '0'.repeat(32);
    out.push({ term, chain: link(previous, `${side}:${out.length + 1}:${term}`) });
  }
  return out;
}

function runsOf(entries: Entry[]): TermRun[] {
  const runs: TermRun[] = [];
  entries.forEach((entry, i) => {
    if (runs.at(-1)?.term !== entry.term) runs.push({ term: entry.term, from: i + 1 });
  });
  return runs;
}

function chainAt(log: Log, seq: number): string | undefined {
  if (seq < log.floor || seq < 1 || seq > log.entries.length) return undefined;
  return log.entries[seq - 1]?.chain;
}

/** Runs a whole search of `local` against `remote`, answering probes from `remote`. */
function search(local: Log, remote: Log): { step: ForkStep; rounds: number } {
  const last = remote.entries.length;
  const fork = new ForkSearch(
    {
      lastSeq: local.entries.length,
      seqFloor: local.floor,
      runs: runsOf(local.entries),
      chainAt: (seq) => chainAt(local, seq),
    },
    { lastSeq: last, runs: runsOf(remote.entries), lastChain: chainAt(remote, last) },
  );
  for (let rounds = 0; ; rounds++) {
    const step = fork.next();
    if (!('probe' in step)) return { step, rounds };
    expect(step.probe.length).toBeGreaterThan(0);
    expect(step.probe.length).toBeLessThanOrEqual(PROBE_SEQS_MAX);
    const samples: ChainSample[] = step.probe.map((seq) => ({ seq, chain: chainAt(remote, seq) }));
    fork.take(samples);
    if (rounds > 20) throw new Error('the search did not end');
  }
}

/** Terms that never go down, from `start`, `count` of them, changing now and then. */
function termsFrom(start: number, steps: number[]): number[] {
  let term = start;
  return steps.map((step) => {
    term += step;
    return term;
  });
}

const prefixSteps = fc.array(fc.constantFrom(0, 0, 0, 0, 1), { maxLength: 300 });
const suffixLength = fc.integer({ min: 0, max: 200 });
const share = fc.double({ min: 0, max: 1, noNaN: true });

/**
 * Two logs that share a prefix (terms from `steps`) and then go on with `localMore` and
 * `remoteMore` entries of their own, in the terms `suffixTerms` picks from the prefix's last.
 */
function forked(
  steps: number[],
  localMore: number,
  remoteMore: number,
  suffixTerms: (last: number) => [local: number, remote: number],
) {
  const prefixTerms = termsFrom(1, steps);
  const common = grow([], prefixTerms, 'common');
  const [localTerm, remoteTerm] = suffixTerms(prefixTerms.at(-1) ?? 1);
  return {
    fork: common.length,
    local: grow(common, Array(localMore).fill(localTerm), 'local'),
    remote: grow(common, Array(remoteMore).fill(remoteTerm), 'remote'),
  };
}

describe('the fork search', () => {
  it('finds the fork exactly when every promotion made its own term, wherever the floors are', () => {
    fc.assert(
      fc.property(
        prefixSteps,
        suffixLength,
        suffixLength,
        share,
        share,
        (steps, localMore, remoteMore, localFloorAt, remoteFloorAt) => {
          // Each side's own writes after the fork are in a term only it made.
          const { fork, local, remote } = forked(steps, localMore, remoteMore, (last) => [
            last * 10 + 2,
            last * 10 + 3,
          ]);
          const localLog = { entries: local, floor: Math.floor(localFloorAt * local.length) };
          const remoteLog = { entries: remote, floor: Math.floor(remoteFloorAt * remote.length) };
          const { step, rounds } = search(localLog, remoteLog);
          expect(step).toMatchObject({ fork });
          expect(rounds).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it('finds the fork by the hash chain when both sides kept the same terms', () => {
    fc.assert(
      fc.property(
        prefixSteps,
        suffixLength,
        suffixLength,
        share,
        share,
        (steps, localMore, remoteMore, localFloorAt, remoteFloorAt) => {
          // Two leaders of the same term (terms from before they were unique).
          const { fork, local, remote } = forked(steps, localMore, remoteMore, (last) => [
            last,
            last,
          ]);
          const localLog = { entries: local, floor: Math.floor(localFloorAt * fork) };
          const remoteLog = { entries: remote, floor: Math.floor(remoteFloorAt * fork) };
          const { step, rounds } = search(localLog, remoteLog);
          // Both logs hold their links from the fork up: the chain places it exactly.
          expect(step).toMatchObject({ fork });
          expect(rounds).toBeLessThanOrEqual(4);
        },
      ),
    );
  });

  it('stops with no answer, never a wrong one, when the chains differ below every link both hold', () => {
    fc.assert(
      fc.property(
        prefixSteps,
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 50 }),
        (steps, localMore, remoteMore, pastFork) => {
          const { fork, local, remote } = forked(steps, localMore, remoteMore, (last) => [
            last,
            last,
          ]);
          // The joining log trimmed past the fork, but holds the link where the terms point.
          const top = Math.min(local.length, remote.length);
          const floor = Math.min(top, fork + pastFork);
          const { step } = search({ entries: local, floor: 0 }, { entries: remote, floor });
          if ('probe' in step) throw new Error('the search ended on a probe');
          if (step.fork !== undefined) expect(step.fork).toBe(fork);
          else expect(step).toMatchObject({ why: expect.stringMatching(/hash chains differ/) });
        },
      ),
    );
  });

  it('takes the terms at their word where no link can check them: why every promotion makes its own', () => {
    // Two logs of the same term, one of them trimmed: nothing tells their entries apart.
    const local = grow([], [1, 1, 1], 'local');
    const remote = grow([], [1, 1], 'remote');
    expect(search({ entries: local, floor: 3 }, { entries: remote, floor: 0 }).step).toEqual({
      fork: 2,
      by: 'terms',
    });
  });

  it('places the fork from the term histories where both logs were trimmed past it', () => {
    const common = grow([], [1, 1, 1, 1], 'common');
    const local = grow(common, [5, 5, 5, 9, 9], 'local');
    const remote = grow(common, [7, 7], 'remote');
    const { step } = search({ entries: local, floor: 8 }, { entries: remote, floor: 6 });
    expect(step).toEqual({ fork: 4, by: 'terms' });
    // Agreeing chains confirm it.
    expect(search({ entries: local, floor: 0 }, { entries: remote, floor: 0 }).step).toEqual({
      fork: 4,
      by: 'chain',
    });
  });

  it('is 0 when nothing is shared, and unknown when the histories differ where both begin', () => {
    const local = grow([], [1, 1, 2], 'local');
    const remote = grow([], [3, 3], 'remote');
    expect(search({ entries: local, floor: 0 }, { entries: remote, floor: 0 }).step).toMatchObject({
      fork: 0,
    });
    expect(
      forkByTerms(
        { lastSeq: 3, runs: [{ term: 2, from: 3 }] },
        { lastSeq: 2, runs: [{ term: 3, from: 2 }] },
      ),
    ).toBe(undefined);
    expect(
      forkByTerms({ lastSeq: 0, runs: [] }, { lastSeq: 5, runs: [{ term: 3, from: 1 }] }),
    ).toBe(0);
    expect(
      forkByTerms(
        { lastSeq: 9, runs: [{ term: 1, from: 5 }] },
        { lastSeq: 9, runs: [{ term: 1, from: 1 }] },
      ),
    ).toBe(9);
  });
});
