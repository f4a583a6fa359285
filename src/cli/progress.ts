/**
 * Progress bars on stderr, for people only: none when stderr is not a terminal or the command
 * prints JSON. The CLI's only importer of cli-progress.
 */

import { SingleBar } from 'cli-progress';

/** A bar that starts on its first update; every method is a no-op when there is no bar. */
export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

/** A bar with `format` (cli-progress tokens: {bar}, {value}, {total}, {eta_formatted}). */
export function progressBar(format: string, json: boolean | undefined): Progress {
  const bar =
    process.stderr.isTTY && !json ? new SingleBar({ format, stream: process.stderr }) : undefined;
  let started = false;
  return {
    update(done, total) {
      if (!bar) return;
      if (!started) bar.start(total, 0);
      started = true;
      bar.setTotal(total);
      bar.update(done);
    },
    stop() {
      if (started) bar?.stop();
    },
  };
}
