/**
 * The npm package as an application gets it: `npm pack` of this checkout, installed into an
 * empty project (its dependencies from the registry), then `npx docdb version` and `seed`,
 * `import { open } from 'docdb'` writing and querying a file, `import { connect } from
 * 'docdb/client'` talking to a node the package's own bin started, and `import { connectCluster }
 * from 'docdb/client/cluster'` routing to that node as the one shard of a cluster.json.
 */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, freePort, ROOT, waitFor } from '../e2e/support.js';
import { makeTempDir } from '../support/temp-dir.js';

const temp = makeTempDir('docdb-pack-');
const project = path.join(temp.dir, 'app');
const children: ChildProcess[] = [];
/** The port of the node the client case started, for the cluster case after it. */
let servedPort: number | undefined;

function npm(args: string[], cwd: string) {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', env: cleanEnv() });
  expect(result.status, `npm ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

function node(script: string) {
  fs.writeFileSync(path.join(project, 'script.mjs'), script);
  const result = spawnSync(process.execPath, ['script.mjs'], {
    cwd: project,
    encoding: 'utf8',
    env: cleanEnv(),
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

beforeAll(() => {
  // --ignore-scripts: pretest built dist/ already; pack takes it as it is.
  const packed = npm(['pack', '--ignore-scripts', '--pack-destination', temp.dir, '--json'], ROOT);
  const { filename } = (JSON.parse(packed) as Array<{ filename: string }>)[0] as {
    filename: string;
  };
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }),
  );
  npm(['install', '--no-audit', '--no-fund', path.join(temp.dir, filename)], project);
}, 180_000);

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  temp.cleanup();
});

describe('the npm package, installed into an empty project', () => {
  it('runs its bin with npx', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(npm(['exec', '--', 'docdb', 'version'], project).trim()).toBe(version);
    npm(['exec', '--', 'docdb', 'seed', 'orders.docdb', '100'], project);
    expect(fs.existsSync(path.join(project, 'orders.docdb'))).toBe(true);
  });

  it("imports the embedded engine from 'docdb'", () => {
    const out = node(`
      import { open } from 'docdb';
      const db = await open('./embedded.docdb');
      await db.collection('things').insertMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
      const result = await db.query('SELECT SUM(n) AS total FROM things');
      console.log(JSON.stringify(result.documents));
      await db.close();
    `);
    expect(JSON.parse(out)).toEqual([{ total: 6 }]);
  });

  it("talks to a node with the typed client from 'docdb/client'", async () => {
    const port = await freePort();
    const serve = spawn(
      path.join(project, 'node_modules', '.bin', 'docdb'),
      ['serve', '--port', String(port), '--data-dir', 'served'],
      { cwd: project, env: cleanEnv() },
    );
    children.push(serve);
    let output = '';
    serve.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    await waitFor(
      () => output.includes('docdb node listening on') || undefined,
      20_000,
      () => `serve did not start:\n${output}`,
    );
    servedPort = port;
    const ui = await fetch(`http://127.0.0.1:${port}/ui/`);
    expect(ui.status).toBe(200);
    const out = node(`
      import { connect } from 'docdb/client';
      const client = connect('http://127.0.0.1:${port}');
      const { id } = await client.insert('things', { name: 'widget' });
      const doc = await client.get('things', id);
      const health = await client.health();
      console.log(JSON.stringify({ name: doc.name, status: health.status }));
      await client.close();
    `);
    expect(JSON.parse(out)).toEqual({ name: 'widget', status: 'ok' });
  });

  it("routes to a cluster's shards in-process from 'docdb/client/cluster'", () => {
    expect(servedPort, 'the node of the client case').toBeDefined();
    const cluster = {
      version: 1,
      router: { port: 6000 },
      shards: [{ name: 's1', endpoint: `http://127.0.0.1:${servedPort}` }],
      collections: { things: { strategy: 'hash', path: 'name' } },
    };
    const out = node(`
      import { connectCluster } from 'docdb/client/cluster';
      const cluster = await connectCluster(${JSON.stringify(cluster)});
      const found = await cluster.query('SELECT name FROM things WHERE name = ?', ['widget']);
      console.log(JSON.stringify({ plan: found.plan.split(':')[0], count: found.count }));
      await cluster.close();
    `);
    expect(JSON.parse(out)).toEqual({ plan: 'SINGLE_SHARD(s1)', count: 1 });
  });
});
