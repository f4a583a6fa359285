/**
 * Helpers for the replication end-to-end tests: `docdb serve` nodes on loopback ports the
 * test picks (started, stopped with SIGTERM or SIGKILL, restarted on the same data dir),
 * their replication status, bounded waits for a follower to catch up, and a node's whole
 * data as REST shows it (documents with their _ids, indexes, counts) for comparing two nodes.
 */

import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { expect } from 'vitest';
import type { ReplicationStatus } from '../../src/replication/index.js';
import {
  cleanEnv,
  freePort,
  type RequestOptions,
  type Response,
  request,
  type ServeProcess,
  START_TIMEOUT_MS,
  startServe,
  waitFor,
  withTimeout,
} from './support.js';

/** Bounds each wait for replication to move (catch-up, a reconnect, a promotion). */
export const REPLICATION_TIMEOUT_MS = 20_000;

export interface NodeOptions {
  /** Flags after --node-name, --port and --data-dir. */
  args?: string[];
  /** DOCDB_* variables (the rest of the environment is the test's, without DOCDB_*). */
  env?: Record<string, string>;
  /** A config file's content, written next to the data dir and passed as --config. */
  config?: Record<string, unknown>;
  /** The certificate the node serves (HTTPS): requests trust it. */
  ca?: string;
}

/** A `docdb serve` node of a test: its name, ports and data dir outlive its process. */
export interface DocdbNode {
  name: string;
  port: number;
  dataDir: string;
  url: string;
  proc: ServeProcess & { startLine: string };
  options: NodeOptions;
}

/** Where a test's nodes keep their data dirs and config files. */
export class Nodes {
  constructor(readonly dir: string) {}

  /** Starts a node named `name` on a fresh port and data dir. */
  async start(name: string, options: NodeOptions = {}): Promise<DocdbNode> {
    const port = await freePort();
    const dataDir = path.join(this.dir, name, 'data');
    return this.launch({ name, port, dataDir, options });
  }

  /** Starts a node again on its port and data dir, with new options when given. */
  restart(node: DocdbNode, options: NodeOptions = node.options): Promise<DocdbNode> {
    return this.launch({ name: node.name, port: node.port, dataDir: node.dataDir, options });
  }

  private async launch(node: {
    name: string;
    port: number;
    dataDir: string;
    options: NodeOptions;
  }): Promise<DocdbNode> {
    const { name, port, dataDir, options } = node;
    const args = ['--node-name', name, '--port', String(port), '--data-dir', dataDir];
    if (options.config) {
      const file = path.join(this.dir, name, 'node.json');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(options.config, null, 2));
      args.push('--config', file);
    }
    args.push(...(options.args ?? []));
    const proc = await startServe(args, {
      cwd: this.dir,
      env: cleanEnv(options.env),
      port,
      ...(options.ca && { ca: options.ca }),
    });
    return { ...node, url: proc.url, proc };
  }
}

/** Stops a node with SIGTERM (a graceful shutdown) and waits for it to exit. */
export async function stop(node: DocdbNode): Promise<void> {
  node.proc.child.kill('SIGTERM');
  const exit = await node.proc.waitForExit();
  expect(exit.code, node.proc.stderr()).toBe(0);
}

/** Kills a node with SIGKILL (kill -9) and waits for it to be gone. */
export async function kill(node: DocdbNode): Promise<void> {
  node.proc.child.kill('SIGKILL');
  await node.proc.waitForExit();
}

/** A request to a node (trusting its certificate when it serves HTTPS). */
export function call(node: DocdbNode, route: string, options: RequestOptions = {}) {
  return request(`${node.url}${route}`, {
    ...options,
    ...(node.options.ca && { ca: node.options.ca }),
  });
}

/** POSTs a JSON body (an empty object when none is given) and answers the response. */
export function post(node: DocdbNode, route: string, body: unknown = {}): Promise<Response> {
  return call(node, route, { method: 'POST', body });
}

/** Expects `status` and answers the JSON body, showing the body when the status differs. */
export function expectStatus<T = Record<string, unknown>>(response: Response, status: number): T {
  expect(response.status, response.text).toBe(status);
  return response.json as T;
}

export async function status(node: DocdbNode): Promise<ReplicationStatus> {
  return expectStatus<ReplicationStatus>(await call(node, '/replication/status'), 200);
}

/** Polls a node's status until `check` holds; fails showing the last status and the logs. */
export async function waitForStatus(
  node: DocdbNode,
  what: string,
  check: (status: ReplicationStatus) => boolean,
  timeoutMs = REPLICATION_TIMEOUT_MS,
): Promise<ReplicationStatus> {
  let last: ReplicationStatus | undefined;
  return waitFor(
    async () => {
      last = await status(node);
      return check(last) ? last : undefined;
    },
    timeoutMs,
    () =>
      `${node.name}: timed out waiting for ${what}\nlast status: ${JSON.stringify(last)}\n` +
      `--- stdout ---\n${node.proc.stdout().slice(-3000)}\n--- stderr ---\n${node.proc.stderr().slice(-2000)}`,
  );
}

/** Waits until `follower` has applied everything `leader` has (equal last seqs, streaming). */
export async function caughtUp(leader: DocdbNode, follower: DocdbNode): Promise<number> {
  const { lastSeq } = await status(leader);
  await waitForStatus(
    follower,
    `it to catch up with ${leader.name} at seq ${lastSeq}`,
    (s) => s.lastSeq === lastSeq && s.leader?.state === 'streaming',
  );
  return lastSeq;
}

/** Inserts one document and answers its id. */
export async function insert(node: DocdbNode, collection: string, doc: unknown): Promise<string> {
  return expectStatus<{ id: string }>(await post(node, `/collections/${collection}`, doc), 201).id;
}

/** The documents of a collection, by _id, as GET /collections/{name} lists them. */
export async function documents(node: DocdbNode, collection: string): Promise<unknown[]> {
  const response = await call(node, `/collections/${collection}?limit=10000`);
  const body = expectStatus<{ documents: Array<{ _id: string }> }>(response, 200);
  return [...body.documents].sort((a, b) => a._id.localeCompare(b._id));
}

/**
 * Everything a node holds as its REST API shows it: each collection's documents (with their
 * _ids), its indexes, and the counts and index entries of /stats. Two nodes with the same
 * data answer equal values.
 */
export async function dataOf(node: DocdbNode): Promise<Record<string, unknown>> {
  const stats = expectStatus<{
    collections: Array<{ name: string; count: number; indexes: unknown[] }>;
  }>(await call(node, '/stats'), 200);
  const data: Record<string, unknown> = {};
  for (const collection of stats.collections) {
    const indexes = expectStatus(await call(node, `/indexes/${collection.name}`), 200);
    data[collection.name] = {
      count: collection.count,
      statsIndexes: collection.indexes,
      indexes,
      documents: await documents(node, collection.name),
    };
  }
  return data;
}

/** Waits until `follower` caught up with `leader`, then expects their data to be equal. */
export async function expectSameData(leader: DocdbNode, follower: DocdbNode): Promise<void> {
  await caughtUp(leader, follower);
  expect(await dataOf(follower)).toEqual(await dataOf(leader));
}

/** Resolves true when something accepts TCP connections on 127.0.0.1:`port`. */
export function listening(port: number): Promise<boolean> {
  return withTimeout(
    new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    }),
    START_TIMEOUT_MS,
    () => `connecting to port ${port} timed out`,
  );
}

/** Follower flags for the leader's replication port on loopback. */
export function followerFlags(leaderPort: number): string[] {
  return [
    '--replication-role',
    'follower',
    '--leader-host',
    '127.0.0.1',
    '--leader-port',
    String(leaderPort),
  ];
}

/** Leader flags for a replication port. */
export function leaderFlags(replicationPort: number): string[] {
  return ['--replication-role', 'leader', '--replication-port', String(replicationPort)];
}
