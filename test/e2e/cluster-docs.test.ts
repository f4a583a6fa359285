/**
 * Runs docs/cluster.md's walk-through as a user would (three nodes, one with an API key, the
 * cluster commands, `docdb health`, a router, POST /seed through it, the documented query)
 * and proves its examples true: each `docdb health cluster.json` block shows what the command
 * prints at that point of the walk (up to ports, widths and response times), and the plan
 * header of the documented query is the one the router answers.
 */

import { type ChildProcess, execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';
import {
  BIN,
  cleanEnv,
  freePort,
  request,
  ROOT,
  startRouter,
  startServe,
  stopAll,
} from './support.js';

const run = promisify(execFile);
const DOC = fs.readFileSync(path.join(ROOT, 'docs/cluster.md'), 'utf8');
const temp = makeTempDir('docdb-cluster-docs-');
let router: ChildProcess | undefined;

/** Runs `bin/docdb` in the walk's directory, as the docs' `./bin/docdb …` lines do. */
async function docdb(...args: string[]): Promise<string> {
  const { stdout } = await run(BIN, args, { cwd: temp.dir, env: cleanEnv({ NO_COLOR: '1' }) });
  return stdout;
}

/** The output lines of each documented run of `command`, in the order of the page. */
function documentedOutputs(command: string): string[][] {
  const outputs: string[][] = [];
  for (const block of DOC.matchAll(/```console\n([\s\S]*?)```/g)) {
    const lines = (block[1] as string).split('\n');
    lines.forEach((line, k) => {
      if (line !== `$ ${command}`) return;
      const end = lines.findIndex((next, j) => j > k && next.startsWith('$ '));
      outputs.push(lines.slice(k + 1, end < 0 ? undefined : end).filter((l) => l !== ''));
    });
  }
  return outputs;
}

/**
 * A health table as compared: every endpoint's port, each shard's response time and the
 * padding (column widths follow the port's digits) left out.
 */
function comparable(lines: readonly string[]): string[] {
  return lines
    .filter((line) => line.trim() !== '')
    .map((line) =>
      line
        .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:PORT')
        .replace(/^(s\d\s+\S+\s+up\s+)\d+/, '$1MS')
        .replace(/^[- ]+$/, '---')
        .replace(/\s+/g, ' ')
        .trim(),
    );
}

beforeAll(async () => {
  const ports = [await freePort(), await freePort(), await freePort()];
  const key = ['', '', '--api-key=s3-key'];
  await Promise.all(
    ports.map((port, k) =>
      startServe(
        [
          '--node-name',
          `s${k + 1}`,
          '--port',
          String(port),
          '--data-dir',
          `./shards/s${k + 1}`,
          ...(key[k] ? [key[k] as string] : []),
        ],
        { cwd: temp.dir, port },
      ),
    ),
  );
  await docdb('cluster', 'init', 'cluster.json');
  for (const [k, port] of ports.entries()) {
    const extra = k === 2 ? ['--api-key', 's3-key'] : [];
    await docdb(
      'cluster',
      'add-shard',
      'cluster.json',
      `s${k + 1}`,
      `http://127.0.0.1:${port}`,
      ...extra,
    );
  }
  await docdb('cluster', 'add-collection', 'cluster.json', 'orders', 'hash', 'pnr');
  await docdb('cluster', 'add-collection', 'cluster.json', 'airports', 'replicated');
}, 60_000);

afterAll(async () => {
  router?.kill('SIGKILL');
  await stopAll();
  temp.cleanup();
});

describe('docs/cluster.md, run as written', () => {
  const healthRuns = documentedOutputs('./bin/docdb health cluster.json');

  it('documents health before and after loading', () => {
    expect(healthRuns).toHaveLength(2);
  });

  it('shows the health of the new cluster, before anything is loaded', async () => {
    expect(comparable((await docdb('health', 'cluster.json')).split('\n'))).toEqual(
      comparable(healthRuns[0] as string[]),
    );
  });

  it('seeds through the router, answers the documented plan, and shows the documented counts', async () => {
    const started = await startRouter('cluster.json', temp.dir);
    router = started.child;
    const routerUrl = started.url;
    const seedCommand = DOC.match(/-d '(\{"orders": \d+\})'/);
    expect(seedCommand, 'the seed command of the page').not.toBeNull();
    const seeded = await request(`${routerUrl}/seed`, {
      body: JSON.parse((seedCommand as RegExpMatchArray)[1] as string),
    });
    expect(seeded.status, seeded.text).toBe(200);
    const documentedSeed = DOC.match(/\n(\{"collection":"orders","inserted":[^\n]*\})\n/);
    expect(seeded.json).toEqual(JSON.parse((documentedSeed as RegExpMatchArray)[1] as string));
    const query = DOC.match(/-d '(\{"sql":"SELECT [^']*\})'/);
    const plan = DOC.match(/\nx-docdb-plan: ([^\n]*)\n/);
    expect(query && plan, 'the query and its plan on the page').toBeTruthy();
    const answer = await request(`${routerUrl}/query`, {
      body: JSON.parse((query as RegExpMatchArray)[1] as string),
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers['x-docdb-plan']).toBe((plan as RegExpMatchArray)[1]);
    // The page's field is one the sample orders have: the rows hold values, not nulls.
    const rows = (answer.json as { documents: Array<Record<string, unknown>> }).documents;
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(Object.values(row).every((v) => v !== null)).toBe(true);
    expect(comparable((await docdb('health', 'cluster.json')).split('\n'))).toEqual(
      comparable(healthRuns[1] as string[]),
    );
  });
});
