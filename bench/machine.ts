/**
 * The machine record of a run: CPU, cores, memory, OS, Node, and the versions of docdb and
 * of every peer library, read from the installed package manifests (not from package.json
 * ranges) and from `wrk -v`, so a result names exactly what was measured.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VERSION } from './engine.js';
import type { Probe } from './probe.js';
import { sqliteVersion } from './embedded/sqlite.js';
import { wrkVersion } from './served/wrk.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT_DIR = path.dirname(BENCH_DIR);

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  /** Where the stores live: its file system decides what an fsync costs. */
  tmpdir: string;
  packages: Record<string, string>;
  /** The machine's own speed when the run began (bench/probe.ts); absent in older runs. */
  probe?: Probe;
}

function installedVersion(dir: string, name: string): string {
  try {
    const manifest = path.join(dir, 'node_modules', name, 'package.json');
    return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

/** The CPU's model name, as the machine record gives it. */
export function cpuModel(): string {
  return os.cpus()[0]?.model.trim() ?? 'unknown';
}

/** Facts about this machine and the software measured. */
export function describeMachine(extra: Record<string, string> = {}, probe?: Probe): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpuModel(),
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    tmpdir: os.tmpdir(),
    packages: {
      docdb: VERSION,
      lmdb: installedVersion(ROOT_DIR, 'lmdb'),
      msgpackr: installedVersion(ROOT_DIR, 'msgpackr'),
      'fastify (docdb)': installedVersion(ROOT_DIR, 'fastify'),
      'better-sqlite3': installedVersion(BENCH_DIR, 'better-sqlite3'),
      sqlite: sqliteVersion(),
      '@seald-io/nedb': installedVersion(BENCH_DIR, '@seald-io/nedb'),
      pg: installedVersion(BENCH_DIR, 'pg'),
      'pg-copy-streams': installedVersion(BENCH_DIR, 'pg-copy-streams'),
      'fastify (peers)': installedVersion(BENCH_DIR, 'fastify'),
      autocannon: installedVersion(BENCH_DIR, 'autocannon'),
      wrk: wrkVersion() ?? 'not installed',
      ...extra,
    },
    ...(probe && { probe }),
  };
}

/** bench/ and the repository root, for the writers of results and docs. */
export const DIRS = { bench: BENCH_DIR, root: ROOT_DIR };
