/**
 * Proves that `docdb version`, `docdb --help` and `docdb <command> --help` load only the
 * command table (src/cli/commands.ts) and what it stands on: commander, errors/, util/,
 * the settings table and version.ts. No engine, storage, SQL, server, cluster, client or
 * replication module and no other package (Fastify, lmdb, undici…) is loaded until a command
 * runs (issue 23: the binary's first `version` under 1 s). Each run records every module Node
 * loads through a module hook.
 */

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/docdb');
/** How many runs wait on their Node start-up at once. */
const RUNS_AT_ONCE = 4;

/** The modules a start that runs no command may load, relative to the checkout. */
const LEAN = [
  /^bin\/docdb$/,
  /^dist\/cli\/(main|commands|arguments|output)\.js$/,
  /^dist\/(errors|util|types)\/[a-z0-9-]+\.js$/,
  /^dist\/server\/settings\.js$/,
  /^dist\/version\.js$/,
  /^node_modules\/commander\//,
];

const temp = makeTempDir('docdb-lean-start-');
afterAll(() => temp.cleanup());

/** A module hook that appends the URL of every module Node loads to DOCDB_MODULE_LOG. */
const hook = path.join(temp.dir, 'module-log.mjs');
fs.writeFileSync(
  hook,
  `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (!url.startsWith('node:')) appendFileSync(process.env.DOCDB_MODULE_LOG, url + '\\\\n');
  return next(url, context);
}\`));
`,
);

/** Runs `docdb <args>` and returns the modules it loaded, relative to the checkout. */
function loadedBy(args: string[], log: string): Promise<{ code: number; modules: string[] }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', pathToFileURL(hook).href, BIN, ...args],
      { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', DOCDB_MODULE_LOG: log } },
      (error) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        const urls = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [];
        // Through the symbolic link a worktree's node_modules may be: the part from it on.
        const modules = urls.map((url) => {
          const file = url.startsWith('file:') ? new URL(url).pathname : url;
          const at = file.indexOf('/node_modules/');
          return at >= 0 ? file.slice(at + 1) : path.relative(ROOT, file);
        });
        resolve({ code, modules });
      },
    );
  });
}

describe('a start that runs no command', () => {
  it('loads only the command table for version, help and every command help', async () => {
    const commands = [
      'version',
      'inspect',
      'query',
      'repl',
      'compact',
      'verify',
      'seed',
      'serve',
      'cluster',
      'health',
      'router',
      'rebalance',
      'backup',
      'restore',
      'export',
      'import',
    ];
    const runs = [
      ['version'],
      ['--version'],
      ['--help'],
      ['help'],
      ['help', 'serve'],
      ['cluster', 'init', '--help'],
      ...commands.map((command) => [command, '--help']),
    ];
    const queue = runs.map((args, at) => ({ args, log: path.join(temp.dir, `run-${at}.log`) }));
    const results = new Map<string, { code: number; modules: string[] }>();
    const runner = async () => {
      for (let run = queue.shift(); run !== undefined; run = queue.shift()) {
        results.set(run.args.join(' '), await loadedBy(run.args, run.log));
      }
    };
    await Promise.all(Array.from({ length: RUNS_AT_ONCE }, runner));
    for (const args of runs) {
      const { code, modules } = results.get(args.join(' ')) ?? { code: -1, modules: [] };
      expect(code, args.join(' ')).toBe(0);
      expect(modules, args.join(' ')).toContain('dist/cli/commands.js');
      const heavy = modules.filter((module) => !LEAN.some((lean) => lean.test(module)));
      expect(heavy, `docdb ${args.join(' ')} loaded more than the command table`).toEqual([]);
    }
  });
});
