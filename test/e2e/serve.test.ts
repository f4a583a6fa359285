/**
 * Runs `bin/docdb serve` as a process and proves its configuration end to end: the config
 * file, flags and DOCDB_* variables in each precedence combination (a flag beats the file, a
 * variable fills only what neither set, then the defaults); the API key from each source
 * (401 without it, 200 with it, /health public); loopback by default; start-up errors that
 * exit non-zero naming the key; and a start-up log line with sources and without secrets.
 */

import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';
import {
  cleanEnv,
  freePort,
  request,
  runServeFailing,
  spawnServe,
  startServe,
  stopAll,
} from './support.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-e2e-serve-'));
});
afterEach(async () => {
  await stopAll();
  cleanup();
});

/** Writes a node config file into the test's dir and returns its path. */
function configFile(content: unknown, name = 'node.json'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

async function health(url: string): Promise<{ node: string }> {
  const response = await request(`${url}/health`);
  expect(response.status).toBe(200);
  return response.json as { node: string };
}

describe('precedence: file, flags over it, variables for what neither set, defaults', () => {
  it('runs from the config file alone', async () => {
    const port = await freePort();
    const dataDir = path.join(dir, 'file-data');
    const config = configFile({ nodeName: 'from-file', port, dataDir });
    const node = await startServe(['--config', config], { cwd: dir, port });
    expect((await health(node.url)).node).toBe('from-file');
    expect(node.startLine).toContain('node=from-file (file)');
    expect(node.startLine).toContain(`port=${port} (file)`);
    expect(node.startLine).toContain(`dataDir=${dataDir} (file)`);
    expect(fs.readdirSync(dataDir).length).toBeGreaterThan(0);
  });

  it('lets flags override the file', async () => {
    const [filePort, flagPort] = [await freePort(), await freePort()];
    const fileDir = path.join(dir, 'file-data');
    const flagDir = path.join(dir, 'flag-data');
    const config = configFile({ nodeName: 'from-file', port: filePort, dataDir: fileDir });
    const node = await startServe(
      [
        '--config',
        config,
        '--node-name',
        'from-flag',
        '--port',
        String(flagPort),
        '--data-dir',
        flagDir,
      ],
      { cwd: dir, port: flagPort },
    );
    expect((await health(node.url)).node).toBe('from-flag');
    expect(node.startLine).toContain('node=from-flag (flag)');
    expect(node.startLine).toContain(`port=${flagPort} (flag)`);
    expect(node.startLine).toContain(`dataDir=${flagDir} (flag)`);
    expect(fs.existsSync(flagDir)).toBe(true);
    expect(fs.existsSync(fileDir)).toBe(false);
    await expect(request(`http://127.0.0.1:${filePort}/health`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('fills from variables what neither the file nor a flag set', async () => {
    const port = await freePort();
    const config = configFile({ nodeName: 'from-file', port, dataDir: path.join(dir, 'd') });
    const env = cleanEnv({ DOCDB_API_KEY: 'key-from-env', DOCDB_NODE_NAME: 'from-env' });
    const node = await startServe(['--config', config], { cwd: dir, env, port });
    expect((await health(node.url)).node).toBe('from-file');
    expect(node.startLine).toContain('apiKey=set (env)');
    expect(node.startLine).toContain('node=from-file (file)');
    expect((await request(`${node.url}/stats`)).status).toBe(401);
    const authorized = { headers: { authorization: 'Bearer key-from-env' } };
    expect((await request(`${node.url}/stats`, authorized)).status).toBe(200);
  });

  it('takes every setting from variables when there is no file and no flag', async () => {
    const port = await freePort();
    const dataDir = path.join(dir, 'env-data');
    const env = cleanEnv({
      DOCDB_PORT: String(port),
      DOCDB_NODE_NAME: 'from-env',
      DOCDB_DATA_DIR: dataDir,
    });
    const node = await startServe([], { cwd: dir, env, port });
    expect((await health(node.url)).node).toBe('from-env');
    expect(node.startLine).toContain(`port=${port} (env)`);
    expect(node.startLine).toContain('node=from-env (env)');
    expect(node.startLine).toContain(`dataDir=${dataDir} (env)`);
    expect(fs.existsSync(dataDir)).toBe(true);
  });

  it('never lets a variable override a flag', async () => {
    const [port, envPort] = [await freePort(), await freePort()];
    const env = cleanEnv({
      DOCDB_PORT: String(envPort),
      DOCDB_NODE_NAME: 'from-env',
      DOCDB_DATA_DIR: path.join(dir, 'env-data'),
    });
    const node = await startServe(['--port', String(port), '--node-name', 'from-flag'], {
      cwd: dir,
      env,
      port,
    });
    expect((await health(node.url)).node).toBe('from-flag');
    expect(node.startLine).toContain(`port=${port} (flag)`);
    // The data dir was set by neither, so the variable fills it.
    expect(node.startLine).toContain(`dataDir=${path.join(dir, 'env-data')} (env)`);
    await expect(request(`http://127.0.0.1:${envPort}/health`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('never lets a variable override the file', async () => {
    const [port, envPort] = [await freePort(), await freePort()];
    const config = configFile({
      nodeName: 'from-file',
      port,
      dataDir: path.join(dir, 'file-data'),
      security: { apiKey: 'key-from-file' },
    });
    const env = cleanEnv({
      DOCDB_PORT: String(envPort),
      DOCDB_NODE_NAME: 'from-env',
      DOCDB_API_KEY: 'key-from-env',
    });
    const node = await startServe(['--config', config], { cwd: dir, env, port });
    expect((await health(node.url)).node).toBe('from-file');
    expect(node.startLine).toContain('apiKey=set (file)');
    const withKey = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
    expect((await request(`${node.url}/stats`, withKey('key-from-env'))).status).toBe(401);
    expect((await request(`${node.url}/stats`, withKey('key-from-file'))).status).toBe(200);
  });

  it('uses the defaults for what nothing set: node-1, ./data, loopback, no key', async () => {
    const port = await freePort();
    const node = await startServe(['--port', String(port)], { cwd: dir, port });
    expect((await health(node.url)).node).toBe('node-1');
    expect(node.startLine).toContain('node=node-1 (default)');
    expect(node.startLine).toContain('dataDir=./data (default)');
    expect(node.startLine).toContain('bind=127.0.0.1 (default)');
    expect(node.startLine).toContain('apiKey=off (default)');
    expect(node.startLine).toContain('tls=off (default)');
    expect(node.startLine).toContain(`listening on http://127.0.0.1:${port}`);
    expect(fs.existsSync(path.join(dir, 'data'))).toBe(true);
    expect((await request(`${node.url}/stats`)).status).toBe(200);
  });
});

describe('API key from each source', () => {
  const sources = {
    flag: (key: string) => ({ args: ['--api-key', key], env: {} }),
    env: (key: string) => ({ args: [], env: { DOCDB_API_KEY: key } }),
    file: (key: string) => ({
      args: [
        '--config',
        configFile({ nodeName: 'n', port: 1, dataDir: './data', security: { apiKey: key } }),
      ],
      env: {},
    }),
  };
  for (const [source, setup] of Object.entries(sources)) {
    it(`requires the key set by ${source} on every endpoint but /health`, async () => {
      const port = await freePort();
      const key = `key-${source}-${Math.random().toString(36).slice(2)}`;
      const { args, env } = setup(key);
      const node = await startServe([...args, '--port', String(port)], {
        cwd: dir,
        env: cleanEnv(env),
        port,
      });
      expect(node.startLine).toContain(`apiKey=set (${source})`);
      expect((await request(`${node.url}/health`)).status).toBe(200);
      for (const endpoint of ['/stats', '/collections', '/metrics']) {
        expect((await request(`${node.url}${endpoint}`)).status).toBe(401);
      }
      const wrong = { headers: { authorization: 'Bearer not-the-key' } };
      expect((await request(`${node.url}/stats`, wrong)).status).toBe(401);
      const right = { headers: { authorization: `Bearer ${key}` } };
      expect((await request(`${node.url}/stats`, right)).status).toBe(200);
      const insert = await request(`${node.url}/collections/things`, { ...right, body: { a: 1 } });
      expect(insert.status).toBe(201);
      expect(node.stdout() + node.stderr()).not.toContain(key);
    });
  }

  it('asks for no credentials without a key', async () => {
    const port = await freePort();
    const node = await startServe(['--port', String(port)], { cwd: dir, port });
    expect((await request(`${node.url}/stats`)).status).toBe(200);
  });
});

describe('start-up errors exit non-zero and name the key', () => {
  async function expectStartFailure(
    args: string[],
    fragments: string[],
    env: Record<string, string> = {},
  ): Promise<string> {
    const { exit, stderr } = await runServeFailing(args, { cwd: dir, env: cleanEnv(env) });
    // ERR_CONFIG_INVALID: a setting to correct, a usage error (exit 2).
    expect(exit.code, stderr).toBe(2);
    for (const fragment of fragments) expect(stderr).toContain(fragment);
    expect(stderr).toContain('ERR_CONFIG_INVALID');
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    return stderr;
  }

  it('rejects an unknown key in the config file, naming its path', async () => {
    const config = configFile({
      nodeName: 'n',
      port: await freePort(),
      dataDir: 'd',
      security: { tlss: { certPath: 'x.pem' } },
    });
    await expectStartFailure(['--config', config], ['security.tlss', 'unknown key']);
  });

  it('rejects a bad port in the file, a flag and a variable', async () => {
    const config = configFile({ nodeName: 'n', port: '5000', dataDir: 'd' });
    await expectStartFailure(['--config', config], ['port in', 'not a string']);
    await expectStartFailure(['--port', '70000'], ['--port', '70000']);
    await expectStartFailure(['--port', '0'], ['--port']);
    // DOCDB_PORT=abc would otherwise leave the node on the default port, which this test
    // must not bind; the replication port shows the same rule without that risk.
    const port = String(await freePort());
    await expectStartFailure(
      ['--port', port, '--replication-role', 'leader'],
      ['DOCDB_REPLICATION_PORT', '"abc"'],
      { DOCDB_REPLICATION_PORT: 'abc' },
    );
  });

  it('rejects equal HTTP and replication ports', async () => {
    const port = String(await freePort());
    await expectStartFailure(
      ['--port', port, '--replication-role', 'leader', '--replication-port', port],
      ['--replication-port', '--port', 'HTTP port'],
    );
  });

  it('rejects a follower without its leader, and a missing or broken config file', async () => {
    const port = String(await freePort());
    await expectStartFailure(['--port', port, '--replication-role', 'follower'], ['leader host']);
    await expectStartFailure(['--config', path.join(dir, 'missing.json')], ['--config', 'ENOENT']);
    await expectStartFailure(['--config', configFile('{ nope', 'broken.json')], ['not valid JSON']);
    await expectStartFailure(
      ['--config', configFile({ port: 1, dataDir: 'd' }, 'n.json')],
      ['nodeName', 'missing'],
    );
  });

  it('names the port when it is already in use', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      await expectStartFailure(['--port', String(port)], [`port ${port}`, 'in use']);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('keeps usage errors at exit code 2', async () => {
    const { exit } = await runServeFailing(['--no-such-flag'], { cwd: dir });
    expect(exit.code).toBe(2);
    const missingValue = await runServeFailing(['--port'], { cwd: dir });
    expect(missingValue.exit.code).toBe(2);
  });
});

describe('the start-up log line', () => {
  it('shows settings and sources, says the node leads, and hides secrets', async () => {
    const [port, replicationPort] = [await freePort(), await freePort()];
    const apiKey = 'api-key-must-not-show-7f3a';
    const secret = 'replication-secret-must-not-show-9c1d';
    const node = await startServe(
      [
        '--port',
        String(port),
        '--api-key',
        apiKey,
        '--replication-role',
        'leader',
        '--replication-port',
        String(replicationPort),
      ],
      { cwd: dir, port, env: cleanEnv({ DOCDB_REPLICATION_SECRET: secret }) },
    );
    expect(node.startLine).toContain(`port=${port} (flag)`);
    expect(node.startLine).toContain('bind=127.0.0.1 (default)');
    expect(node.startLine).toContain('apiKey=set (flag)');
    expect(node.startLine).toContain('replication=leader (flag)');
    expect(node.stdout()).toContain(`replication: leading on port ${replicationPort} (term 1)`);
    const authorized = { headers: { authorization: `Bearer ${apiKey}` } };
    expect((await request(`${node.url}/stats`, authorized)).status).toBe(200);
    node.child.kill('SIGTERM');
    expect((await node.waitForExit()).code).toBe(0);
    const output = node.stdout() + node.stderr();
    expect(output).not.toContain(apiKey);
    expect(output).not.toContain(secret);
    // Exactly one start-up line.
    expect(output.split('docdb node listening on').length).toBe(2);
  });

  it('exits 0 on SIGINT too', async () => {
    const port = await freePort();
    const node = await startServe(['--port', String(port)], { cwd: dir, port });
    node.child.kill('SIGINT');
    expect((await node.waitForExit()).code).toBe(0);
  });
});

describe('help', () => {
  it('describes every flag of the spec table', async () => {
    const proc = spawnServe(['--help'], { cwd: dir });
    expect((await proc.waitForExit()).code).toBe(0);
    for (const flag of [
      '--config',
      '--node-name',
      '--port',
      '--data-dir',
      '--api-key',
      '--replication-secret',
      '--bind-all',
      '--replication-role',
      '--replication-port',
      '--leader-host',
      '--leader-port',
      '--auto-failover-seconds',
      '--auto-failover-new-port',
    ]) {
      expect(proc.stdout()).toContain(flag);
    }
  });
});
