/**
 * Proves the writer lock's idea of a live holder: a record of this very process is refused
 * as "already open", a live process in this boot is refused, and a record whose pid is alive
 * but in another boot, or started at another time (a reboot, a new container where every
 * run is pid 1), is stale and taken over; a record from where /proc could not tell falls
 * back to the pid alone.
 */

import * as fs from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { processStamp } from '../util/index.js';
import { acquireWriterLock, type LockOwner, lockHolder } from './writer-lock.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function lockedFile(owner: Partial<LockOwner>): string {
  const { dir, cleanup } = makeTempDir('docdb-writer-lock-');
  cleanups.push(cleanup);
  const file = path.join(dir, 'data.docdb');
  const record = { host: hostname(), command: 'a test', since: 'then', ...owner };
  fs.writeFileSync(`${file}-owner`, JSON.stringify(record));
  return file;
}

const linux = processStamp(process.pid) !== undefined;

describe('the writer lock', () => {
  it('refuses a live holder and this process opening twice', () => {
    const parent = lockedFile({ pid: process.ppid, ...processStamp(process.ppid) });
    expect(() => acquireWriterLock(parent)).toThrow(
      expect.objectContaining({ code: 'ERR_STORAGE_LOCKED' }),
    );
    expect(lockHolder(parent)?.pid).toBe(process.ppid);
    const self = lockedFile({ pid: process.pid, ...processStamp(process.pid) });
    expect(() => acquireWriterLock(self)).toThrow(/this process already has it open/);
    // From where /proc could not tell: the pid alone decides.
    expect(() => acquireWriterLock(lockedFile({ pid: process.ppid }))).toThrow(
      expect.objectContaining({ code: 'ERR_STORAGE_LOCKED' }),
    );
  });

  it.skipIf(!linux)('takes over a live pid of another boot or another start', () => {
    const stamp = processStamp(process.pid) as NonNullable<ReturnType<typeof processStamp>>;
    const cases: Array<Partial<LockOwner>> = [
      // This pid, in a run before this one (pid 1 of an earlier container).
      { pid: process.pid, bootId: stamp.bootId, startTicks: stamp.startTicks - 1 },
      // A live pid, recorded in another boot.
      { pid: process.ppid, bootId: 'another-boot', startTicks: 1 },
    ];
    for (const owner of cases) {
      const file = lockedFile(owner);
      expect(lockHolder(file)).toBeUndefined();
      const lock = acquireWriterLock(file);
      const taken = JSON.parse(fs.readFileSync(`${file}-owner`, 'utf8')) as LockOwner;
      expect(taken).toMatchObject({ pid: process.pid, ...stamp });
      lock.release();
      expect(fs.existsSync(`${file}-owner`)).toBe(false);
    }
  });
});
