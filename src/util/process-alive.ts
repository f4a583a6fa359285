/**
 * Whether a process runs: by pid, and on Linux also by what tells one run of a process from
 * another that got the same pid after a reboot or in a new container (pid 1 always looks
 * alive there): the machine's boot id and the process's start time.
 */

import * as fs from 'node:fs';

/** Whether a process with this pid runs on this machine (one we may not signal counts). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One run of a process: the boot it runs in and when it started in it. */
export interface ProcessStamp {
  /** `/proc/sys/kernel/random/boot_id`: new at every boot. */
  bootId: string;
  /** Field 22 of `/proc/<pid>/stat`: clock ticks from the boot to the process's start. */
  startTicks: number;
}

/** The stamp of the running process `pid`; undefined where /proc cannot tell (not Linux). */
export function processStamp(pid: number): ProcessStamp | undefined {
  try {
    const bootId = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name, in parentheses, may hold spaces and parentheses: fields count after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTicks = Number(fields[19]);
    if (bootId === '' || !Number.isSafeInteger(startTicks)) return undefined;
    return { bootId, startTicks };
  } catch {
    return undefined;
  }
}

/**
 * Whether the run of process `pid` that `stamp` was taken of still runs. Without a stamp (one
 * recorded where /proc could not tell), a live pid is taken for it.
 */
export function isStampedProcessAlive(pid: number, stamp: Partial<ProcessStamp>): boolean {
  if (!isProcessAlive(pid)) return false;
  if (stamp.bootId === undefined || stamp.startTicks === undefined) return true;
  const now = processStamp(pid);
  if (now === undefined) return true;
  return now.bootId === stamp.bootId && now.startTicks === stamp.startTicks;
}
