/**
 * The journal of a rebalance run, `<new-config>.rebalance-journal` (NDJSON, beside the new
 * config): each batch of documents about to be copied, then each delete from the old shard as
 * it is sent and as it is answered, then the batch's end. A run that is stopped (killed, a lost
 * shard) leaves its last batch open; the next run reads it to tell apart, for each document of
 * that batch gone from its old shard, a delete of the move itself (the copy is the document)
 * from a delete by an application while the move was stopped (the copy must go too). Only a
 * delete sent and not answered before the stop stays uncertain: the copy is kept and reported.
 * A lock file beside it keeps two runs from moving the same topology at once.
 */

import * as fs from 'node:fs';
import { dbError } from '../errors/index.js';
import { isProcessAlive } from '../util/index.js';

/** A batch a stopped run left open, with what it knew of each delete. */
export interface OpenBatch {
  collection: string;
  from: string;
  to: string;
  ids: string[];
  /** Deletes sent to the old shard… */
  deleting: Set<string>;
  /** …and those it answered. */
  deleted: Set<string>;
}

type Line =
  | { t: 'batch'; n: number; collection: string; from: string; to: string; ids: string[] }
  | { t: 'deleting' | 'deleted'; n: number; id: string }
  | { t: 'done'; n: number };

export class RebalanceJournal {
  private fd: number;
  private next = 1;

  private constructor(
    readonly file: string,
    private readonly lock: string,
    /** The batches the last run left open. */
    readonly open: OpenBatch[],
  ) {
    this.fd = fs.openSync(file, 'a');
  }

  /** Takes the lock and reads what an earlier run left. */
  static take(file: string): RebalanceJournal {
    const lock = `${file}.lock`;
    takeLock(lock);
    try {
      return new RebalanceJournal(file, lock, openBatches(file));
    } catch (error) {
      fs.rmSync(lock, { force: true });
      throw error;
    }
  }

  /** Records a batch before any of it is copied; durable before it answers. */
  startBatch(collection: string, from: string, to: string, ids: string[]): number {
    const n = this.next++;
    this.append({ t: 'batch', n, collection, from, to, ids });
    fs.fsyncSync(this.fd);
    return n;
  }

  deleting(n: number, id: string): void {
    this.append({ t: 'deleting', n, id });
  }

  deleted(n: number, id: string): void {
    this.append({ t: 'deleted', n, id });
  }

  finishBatch(n: number): void {
    this.append({ t: 'done', n });
  }

  /** Forgets the batches an earlier run left, once they are settled. */
  settled(): void {
    fs.ftruncateSync(this.fd, 0);
    fs.fsyncSync(this.fd);
    this.open.length = 0;
  }

  /** Releases the lock; a finished run removes the journal too. */
  close(finished: boolean): void {
    fs.closeSync(this.fd);
    if (finished) fs.rmSync(this.file, { force: true });
    fs.rmSync(this.lock, { force: true });
  }

  private append(line: Line): void {
    // A write(2) reaches the file when the process is killed right after; no fsync needed.
    fs.writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }
}

function takeLock(lock: string): void {
  try {
    fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const pid = Number(fs.readFileSync(lock, 'utf8'));
  if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isProcessAlive(pid)) {
    throw dbError('ERR_BAD_ARGUMENT', 'rebalanceRunning', { pid, lock });
  }
  // Left by a run that was killed: take it over.
  fs.writeFileSync(lock, String(process.pid));
}

/** The batches of a journal file without their end; a torn last line is ignored. */
function openBatches(file: string): OpenBatch[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const batches = new Map<number, OpenBatch>();
  for (const raw of text.split('\n')) {
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      continue;
    }
    if (line.t === 'batch') {
      const { collection, from, to, ids } = line;
      batches.set(line.n, { collection, from, to, ids, deleting: new Set(), deleted: new Set() });
    } else if (line.t === 'done') {
      batches.delete(line.n);
    } else {
      batches.get(line.n)?.[line.t].add(line.id);
    }
  }
  return [...batches.values()];
}
