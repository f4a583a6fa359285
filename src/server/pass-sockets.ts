/**
 * The internal socket on which a node's reader processes pass it what they do not serve
 * (readers.ts): its name, and the removal of those left behind by nodes that never closed.
 *
 * A node removes its socket file when it closes. One that was killed (kill -9, the OOM
 * killer, a power cut) never gets there, and its file stays in the temp directory: the
 * crash suites of one day of CI left some 3,900. The next node to start its readers removes
 * the ones nobody listens on any more.
 */

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** `docdb-<pid>-<8 hex digits>.sock`: only these are ever looked at, never another file. */
const PASS_SOCKET_NAME = /^docdb-\d+-[0-9a-f]{8}\.sock$/;
/**
 * A socket younger than this is left alone: a node binds its socket and then listens, and a
 * connection that lands between the two is refused though the node is alive.
 */
export const PASS_SOCKET_MIN_AGE_MS = 60_000;
/** Connections tried at once while looking for stale sockets. */
const PROBES_AT_ONCE = 32;

/** A new pass socket's path: a unix socket in the temp directory, a named pipe on Windows. */
export function newPassSocketPath(): string {
  const name = `docdb-${process.pid}-${randomBytes(4).toString('hex')}`;
  return process.platform === 'win32'
    ? `\\\\.\\pipe\\${name}`
    : path.join(os.tmpdir(), `${name}.sock`);
}

/** Whether a connection to the socket at `file` is refused: nothing listens on it. */
function refused(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(file);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.destroy();
      resolve(error.code === 'ECONNREFUSED');
    });
  });
}

/**
 * Removes the pass sockets in `dir` that this user owns, that are at least `minAgeMs` old and
 * that refuse a connection; answers how many it removed. A socket some process still listens
 * on, another user's, or one it cannot reach is left. Nothing here throws.
 */
export async function removeStalePassSockets(
  dir: string,
  minAgeMs = PASS_SOCKET_MIN_AGE_MS,
): Promise<number> {
  if (process.platform === 'win32') return 0;
  let candidates: string[];
  try {
    const uid = process.getuid?.();
    const now = Date.now();
    candidates = fs
      .readdirSync(dir)
      .filter((name) => PASS_SOCKET_NAME.test(name))
      .map((name) => path.join(dir, name))
      .filter((file) => {
        const stat = fs.lstatSync(file, { throwIfNoEntry: false });
        return stat?.isSocket() === true && stat.uid === uid && now - stat.mtimeMs >= minAgeMs;
      });
  } catch {
    // A directory it cannot read, or a file it cannot look at: nothing to sweep.
    return 0;
  }
  let removed = 0;
  for (let i = 0; i < candidates.length; i += PROBES_AT_ONCE) {
    const batch = candidates.slice(i, i + PROBES_AT_ONCE);
    const stale = await Promise.all(batch.map(refused));
    for (let j = 0; j < batch.length; j++) {
      if (!stale[j]) continue;
      try {
        fs.rmSync(batch[j] as string);
        removed++;
      } catch {
        // Gone already (another node swept it), or not ours to remove.
      }
    }
  }
  return removed;
}
