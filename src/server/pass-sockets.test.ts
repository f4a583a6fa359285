// The sweep of internal sockets left by killed nodes: it removes a socket nothing listens on,
// and leaves one a process still serves, one younger than its minimum age, and every file
// whose name is not a pass socket's.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newPassSocketPath, removeStalePassSockets } from './pass-sockets.js';

let dir: string;
const servers: net.Server[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docdb-pass-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A socket file left as a killed node leaves it: a process listens on it, then gets SIGKILL. */
async function leftBehind(file: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(file)}, () => process.send('up'))`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  await new Promise<void>((resolve) => child.once('message', () => resolve()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
  expect(fs.lstatSync(file).isSocket()).toBe(true);
}

async function listening(file: string): Promise<void> {
  const server = net.createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(file, () => resolve()));
}

describe.skipIf(process.platform === 'win32')('removeStalePassSockets', () => {
  it('removes the sockets nobody listens on and leaves served, young and foreign files', async () => {
    const stale = [1, 2, 3].map((i) => path.join(dir, `docdb-${900 + i}-0000000${i}.sock`));
    for (const file of stale) await leftBehind(file);
    const served = path.join(dir, 'docdb-1-abcdef01.sock');
    await listening(served);
    const foreign = path.join(dir, 'docdb-7-notasock.sock');
    fs.writeFileSync(foreign, '');
    const plain = path.join(dir, 'docdb-8-0badcafe.sock');
    fs.writeFileSync(plain, ''); // the name of one, but a plain file

    // Young: all left.
    expect(await removeStalePassSockets(dir)).toBe(0);
    for (const file of stale) expect(fs.existsSync(file)).toBe(true);

    expect(await removeStalePassSockets(dir, 0)).toBe(3);
    for (const file of stale) expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(served)).toBe(true);
    expect(fs.existsSync(foreign)).toBe(true);
    expect(fs.existsSync(plain)).toBe(true);

    // The served socket still serves.
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(served, () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', reject);
    });
  });

  it('answers 0 for a directory it cannot read', async () => {
    expect(await removeStalePassSockets(path.join(dir, 'missing'), 0)).toBe(0);
  });

  it('names new sockets as the sweep looks for them', () => {
    const file = newPassSocketPath();
    expect(path.dirname(file)).toBe(os.tmpdir());
    expect(path.basename(file)).toMatch(new RegExp(`^docdb-${process.pid}-[0-9a-f]{8}\\.sock$`));
  });
});
