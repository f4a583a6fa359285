/**
 * Progress bars of long commands (seed, rebalance, backup, restore, import): on stderr, and
 * only on a terminal and without `--json`, so scripts and pipes never see them. The CLI's only
 * importer of cli-progress.
 */

import { SingleBar } from 'cli-progress';

/** A bar that may be absent: every call is safe either way. */
export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

/**
 * A bar with `format` (cli-progress tokens: `{bar}`, `{value}`, `{total}`,
 * `{eta_formatted}`…), or a silent one when stderr is not a terminal or `json` is set.
 */
export function progressBar(format: string, json: boolean | undefined): Progress {
  if (!process.stderr.isTTY || json) return { update: () => {}, stop: () => {} };
  const bar = new SingleBar({ format, stream: process.stderr });
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, done);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(done);
      }
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}
