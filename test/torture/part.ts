/**
 * What a part of the torture suite is: a name, what it proves, and a run that returns its
 * checks. Each check counts attempts that passed and failed and keeps the first failures'
 * descriptions; a check that cannot run here is skipped with its reason. Parts are listed in
 * registry.ts; the harness (torture.ts) runs them and prints one table. A part never throws
 * for a failed attempt: it counts it.
 */

/** What every part is given. */
export interface PartContext {
  /** A directory of its own, removed after a passing run unless --keep. */
  dir: string;
  quick: boolean;
  /** Seed of every random choice, so a failing run can be repeated (--seed). */
  seed: number;
  log: (line: string) => void;
}

/** One row of the summary table. */
export interface CheckResult {
  name: string;
  passed: number;
  failed: number;
  /** Counts of outcomes worth reading beside pass/fail ("clear error 31, correct 9"). */
  outcomes: Record<string, number>;
  /** The first failures, each with what to run to see it again. */
  failures: string[];
  ms: number;
}

export interface TorturePart {
  name: string;
  /** One line: what it does to docdb and what must hold. */
  description: string;
  run(context: PartContext): Promise<CheckResult[]>;
}

/** Failures kept per check for the report. */
export const FAILURES_KEPT_MAX = 10;

/** A check being counted. */
export class Check {
  private readonly result: CheckResult;
  private readonly started = Date.now();

  constructor(name: string) {
    this.result = { name, passed: 0, failed: 0, outcomes: {}, failures: [], ms: 0 };
  }

  /** Counts one attempt with its outcome; `failure` set means it failed. */
  count(outcome: string, failure?: string): void {
    this.result.outcomes[outcome] = (this.result.outcomes[outcome] ?? 0) + 1;
    if (failure === undefined) {
      this.result.passed++;
      return;
    }
    this.result.failed++;
    if (this.result.failures.length < FAILURES_KEPT_MAX) this.result.failures.push(failure);
  }

  /**
   * Counts no attempt: the check cannot run on this machine (`reason`, e.g. mounting is not
   * permitted). The table shows it as an outcome; it is neither passed nor failed.
   */
  skip(reason: string): void {
    this.result.outcomes[`skipped: ${reason}`] = 1;
  }

  done(): CheckResult {
    return { ...this.result, ms: Date.now() - this.started };
  }
}
