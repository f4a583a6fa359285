/**
 * cluster.json on disk: read and validated on every read (the file is edited by hand too),
 * written atomically. The shape and its checks are config.ts's.
 */

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { dbError, isDbError } from '../errors/index.js';
import { CLUSTER_CONFIG_BYTES_MAX, fileFault } from '../util/index.js';
import { type ClusterConfig, configAt, configDetails, parseClusterConfig } from './config.js';

/**
 * Reads and validates a cluster.json (every read validates: the file is edited by hand too).
 * A missing file, one larger than CLUSTER_CONFIG_BYTES_MAX, one that is not JSON or one that
 * breaks the format is ERR_CLUSTER_CONFIG_INVALID, with the file and the field in the message.
 */
export async function readClusterConfig(file: string): Promise<ClusterConfig> {
  const source = path.resolve(file);
  let text: string;
  try {
    const stat = await fs.stat(source);
    if (stat.size > CLUSTER_CONFIG_BYTES_MAX) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'tooLarge',
        { at: configAt(source, ''), size: stat.size, limit: CLUSTER_CONFIG_BYTES_MAX },
        configDetails(source, ''),
      );
    }
    text = await fs.readFile(source, 'utf8');
  } catch (error) {
    if (isDbError(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'noFile',
        { at: configAt(source, ''), file },
        configDetails(source, ''),
      );
    }
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'unreadable',
      { at: configAt(source, ''), cause: (error as Error).message },
      configDetails(source, ''),
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'notJson',
      { at: configAt(source, ''), cause: (error as Error).message },
      configDetails(source, ''),
    );
  }
  return parseClusterConfig(value, source);
}

/** What `writeClusterConfig` puts in a file: pretty JSON, two spaces, a trailing newline. */
export function formatClusterConfig(config: ClusterConfig): string {
  return `${JSON.stringify(parseClusterConfig(config), null, 2)}\n`;
}

/** File mode of a new cluster.json: it may hold API keys, so only its owner reads it. */
const NEW_FILE_MODE = 0o600;

async function modeFor(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).mode & 0o777;
  } catch {
    return NEW_FILE_MODE;
  }
}

/**
 * Writes a cluster.json atomically: validated first (an invalid config is never written),
 * then a temp file beside it, fsynced, renamed over the target (the directory fsynced after),
 * so a reader sees the old file or the new one, never a torn one. A replaced file keeps its
 * mode; a new one is 0600. `exclusive` refuses to replace an existing file, atomically
 * (link, not rename).
 */
export async function writeClusterConfig(
  file: string,
  config: ClusterConfig,
  options: { exclusive?: boolean } = {},
): Promise<void> {
  const text = formatClusterConfig(config);
  const target = path.resolve(file);
  const dir = path.dirname(target);
  const temp = path.join(
    dir,
    `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  const handle = await fs.open(temp, 'wx', await modeFor(target)).catch((error: unknown) => {
    throw unwritable(target, error);
  });
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.exclusive) await linkExclusive(temp, target);
    else await fs.rename(temp, target);
  } finally {
    await fs.rm(temp, { force: true });
  }
  await syncDirectory(dir);
}

/** A failed write of `target` in the user's terms, naming the target, not the temp file. */
function unwritable(target: string, error: unknown): unknown {
  const cause = fileFault(error);
  if (cause === undefined) return error;
  return dbError('ERR_BAD_ARGUMENT', 'targetUnwritable', { target, cause }, { file: target });
}

async function linkExclusive(temp: string, target: string): Promise<void> {
  try {
    await fs.link(temp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw dbError('ERR_BAD_ARGUMENT', 'targetExists', { target }, { file: target });
    }
    throw error;
  }
}

/** Makes a rename durable. Some platforms cannot open a directory; the rename still stands. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Best effort: see above.
  } finally {
    await handle?.close();
  }
}
