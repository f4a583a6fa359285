/**
 * `docdb backup <source> <out>` and `docdb restore <backup> <data-dir>` (docs/backup.md): a
 * hot backup of a data directory (beside a running node too: the copy is read-only) or of a
 * node by URL (POST /admin/backup), and a checked restore with optional point-in-time
 * replay. Progress on stderr on a terminal; `--json` for scripts.
 */

import * as fs from 'node:fs';
import { connect } from '../client/index.js';
import {
  type BackupManifest,
  type RestorePoint,
  type RestoreResult,
  restoreBackup,
  takeBackup,
  unpackBackup,
} from '../engine/index.js';
import { dbError } from '../errors/index.js';
import { resolveDataFile } from '../storage/index.js';
import { dataFileExists, openExisting } from './open-file.js';
import { bold, formatBytes, printJson } from './output.js';
import { type Progress, progressBar } from './progress.js';

/** A data directory or file, or a node's http(s) URL. */
function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

async function backupOfNode(
  url: string,
  out: string,
  options: BackupFlags,
  bar: Progress,
): Promise<BackupManifest> {
  const client = connect(url, { apiKey: options.apiKey ?? process.env.DOCDB_API_KEY });
  try {
    const answer = await client.backup({
      withLog: options.withLog === true,
      compact: options.compact === true,
    });
    let received = 0;
    async function* counted(): AsyncGenerator<Buffer> {
      for await (const chunk of answer.chunks) {
        received += chunk.length;
        bar.update(received, answer.bytes);
        yield chunk;
      }
    }
    return await unpackBackup(counted(), out, url);
  } finally {
    await client.close();
  }
}

async function backupOfFile(
  source: string,
  out: string,
  options: BackupFlags,
  bar: Progress,
): Promise<BackupManifest> {
  if (!dataFileExists(source)) {
    throw dbError('ERR_STORAGE_NOT_FOUND', 'noFile', { file: resolveDataFile(source).file });
  }
  const db = await openExisting(source);
  try {
    return await takeBackup(db, out, {
      withLog: options.withLog === true,
      compact: options.compact === true,
      onProgress: (done, total) => bar.update(done, total),
    });
  } finally {
    await db.close();
  }
}

interface BackupFlags {
  withLog?: boolean;
  compact?: boolean;
  apiKey?: string;
  json?: boolean;
}

function printManifest(out: string, manifest: BackupManifest, seconds: number): void {
  const data = manifest.files[0];
  const collections = manifest.collections.map((c) => `${c.name} ${c.count}`).join(', ');
  const lines = [
    `${bold('backup')}       ${out}`,
    `${bold('data')}         ${formatBytes(data?.bytes ?? 0)}, sha256 ${data?.sha256.slice(0, 16)}…`,
    `${bold('seq')}          ${manifest.lastSeq} (term ${manifest.lastTerm})`,
    `${bold('collections')}  ${collections || 'none'}`,
  ];
  if (manifest.log) {
    lines.push(`${bold('log')}          seqs ${manifest.log.firstSeq} to ${manifest.log.lastSeq}`);
  }
  lines.push(`${bold('took')}         ${seconds.toFixed(2)} s`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function printRestore(backup: string, result: RestoreResult): void {
  const collections = result.collections.map((c) => `${c.name} ${c.count}`).join(', ');
  const lines = [
    `${bold('restored')}     ${backup} (seq ${result.backupSeq}, taken ${result.backupCreatedAt})`,
    `${bold('into')}         ${result.file}`,
  ];
  if (result.replayed > 0 || result.lastSeq !== result.backupSeq) {
    lines.push(
      `${bold('replayed')}     ${result.replayed} change-log entries: now at seq ${result.lastSeq}`,
    );
  }
  if (result.stoppedBefore) {
    const { seq, endSeq } = result.stoppedBefore;
    lines.push(
      `${bold('stopped')}      before seq ${seq}: seqs ${seq} to ${endSeq} are one write, which went past the point`,
    );
  }
  lines.push(`${bold('collections')}  ${collections || 'none'}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Runs `docdb backup` (declared in commands.ts). */
export async function runBackup(source: string, out: string, options: BackupFlags): Promise<void> {
  const bar = progressBar('backup [{bar}] {percentage}% {eta_formatted} left', options.json);
  const started = performance.now();
  const existed = fs.existsSync(out);
  try {
    const manifest = await (isUrl(source)
      ? backupOfNode(source, out, options, bar)
      : backupOfFile(source, out, options, bar)
    ).catch((error: unknown) => {
      // A backup that failed leaves nothing that could pass for one.
      if (!existed) fs.rmSync(out, { recursive: true, force: true });
      throw error;
    });
    bar.stop();
    const seconds = (performance.now() - started) / 1000;
    if (options.json) printJson({ ...manifest, dir: out, seconds });
    else printManifest(out, manifest, seconds);
  } finally {
    bar.stop();
  }
}

/** Runs `docdb restore` (declared in commands.ts). */
export async function runRestore(
  backup: string,
  dataDir: string,
  options: {
    force?: boolean;
    toSeq?: number;
    toTime?: number;
    toEnd?: boolean;
    logDir: string[];
    json?: boolean;
  },
): Promise<void> {
  const point: RestorePoint | undefined =
    options.toSeq !== undefined
      ? { toSeq: options.toSeq }
      : options.toTime !== undefined
        ? { toTimeMs: options.toTime }
        : options.toEnd
          ? { toEnd: true }
          : undefined;
  const bar = progressBar('replay [{bar}] {value}/{total} entries', options.json);
  try {
    const result = await restoreBackup(backup, dataDir, {
      force: options.force === true,
      ...(point && { point }),
      logDirs: options.logDir,
      onProgress: (done, total) => bar.update(done, total),
    });
    bar.stop();
    if (options.json) printJson(result);
    else printRestore(backup, result);
  } finally {
    bar.stop();
  }
}
