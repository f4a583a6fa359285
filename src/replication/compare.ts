/**
 * Two nodes' change logs compared from their files (`docdb verify --peer`): the fork search
 * a rejoining follower goes through (fork.ts), with both sides read locally. It reads only.
 */

import type { LogComparison } from '../types/index.js';
import { ForkSearch, type LocalHistory } from './fork.js';
import type { ReplicationStorage } from './port.js';

/** What a comparison reads of a node's log. */
export type LogHistorySource = Pick<ReplicationStorage, 'nodeState' | 'termRuns' | 'chainAt'>;

function historyOf(db: LogHistorySource): LocalHistory {
  const { lastSeq, seqFloor } = db.nodeState();
  return { lastSeq, seqFloor, runs: db.termRuns(), chainAt: (seq) => db.chainAt(seq) };
}

/** Compares the logs of `here` (file `file`) and `there` (file `peer`). */
export function compareLogs(
  here: LogHistorySource,
  there: LogHistorySource,
  names: { file: string; peer: string },
): LogComparison {
  const mine = historyOf(here);
  const theirs = historyOf(there);
  const search = new ForkSearch(mine, { ...theirs, lastChain: theirs.chainAt(theirs.lastSeq) });
  let step = search.next();
  while ('probe' in step) {
    search.take(step.probe.map((seq) => ({ seq, chain: theirs.chainAt(seq) })));
    step = search.next();
  }
  const base = { ...names, lastSeq: mine.lastSeq, peerLastSeq: theirs.lastSeq };
  if (step.fork === undefined) {
    return {
      ...base,
      verdict: 'unknown',
      sharedThrough: null,
      foundBy: null,
      message: `the logs part, but not where: ${step.why}`,
    };
  }
  const fork = step.fork;
  const onlyHere = mine.lastSeq - fork;
  const onlyThere = theirs.lastSeq - fork;
  const verdict =
    onlyHere > 0 && onlyThere > 0 ? 'diverged' : onlyHere + onlyThere > 0 ? 'behind' : 'same';
  const message = {
    same: `the logs agree through seq ${fork}, where both end`,
    behind:
      onlyHere > 0
        ? `the logs agree through seq ${fork}; ${names.peer} is ${onlyHere} entries behind`
        : `the logs agree through seq ${fork}; ${names.file} is ${onlyThere} entries behind`,
    diverged: `the logs part after seq ${fork}: ${names.file} holds ${onlyHere} entries ${names.peer} never had, and ${names.peer} ${onlyThere} that ${names.file} never had`,
  }[verdict];
  return { ...base, verdict, sharedThrough: fork, foundBy: step.by, message };
}
