/**
 * Proves the rebalance journal: batches left open by a stopped run come back with the deletes
 * it sent and saw answered, a torn last line is ignored, a finished run removes the file, and
 * the lock refuses a second live run but is taken over from a killed one.
 */

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { RebalanceJournal } from './rebalance-journal.js';

let temp: ReturnType<typeof makeTempDir>;
let file: string;
beforeEach(() => {
  temp = makeTempDir('docdb-journal-');
  file = path.join(temp.dir, 'new.json.rebalance-journal');
});
afterEach(() => temp.cleanup());

describe('RebalanceJournal', () => {
  it('gives the next run the open batches, with the deletes sent and answered', () => {
    const first = RebalanceJournal.take(file);
    expect(first.open).toEqual([]);
    const done = first.startBatch('orders', 's1', 's3', ['a', 'b']);
    first.deleting(done, 'a');
    first.deleted(done, 'a');
    first.finishBatch(done);
    const open = first.startBatch('orders', 's2', 's3', ['c', 'd', 'e']);
    first.deleting(open, 'c');
    first.deleted(open, 'c');
    first.deleting(open, 'd');
    first.close(false);
    fs.appendFileSync(file, '{"t":"deleted","n":2,"id":"d'); // torn by a kill

    const second = RebalanceJournal.take(file);
    expect(second.open).toEqual([
      {
        collection: 'orders',
        from: 's2',
        to: 's3',
        ids: ['c', 'd', 'e'],
        deleting: new Set(['c', 'd']),
        deleted: new Set(['c']),
      },
    ]);
    second.settled();
    second.close(true);
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it('refuses a second run while the first lives, and takes over from a killed one', () => {
    const running = RebalanceJournal.take(file);
    fs.writeFileSync(`${file}.lock`, String(process.ppid));
    expect(() => RebalanceJournal.take(file)).toThrow(/another rebalance \(pid \d+\)/);
    running.close(false);

    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    fs.writeFileSync(`${file}.lock`, dead.stdout.toString());
    const next = RebalanceJournal.take(file);
    expect(fs.readFileSync(`${file}.lock`, 'utf8')).toBe(String(process.pid));
    next.close(true);
  });
});
