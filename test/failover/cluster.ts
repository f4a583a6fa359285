/**
 * Real `bin/docdb serve` nodes for the failover run: each has a name, a data directory and
 * two loopback ports (HTTP and replication) that stay its own across restarts, so a node can
 * be killed, restarted as a follower and promoted again on the same ports. Every wait here is
 * bounded; nothing here decides whether a run passed.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  EXIT_TIMEOUT_MS,
  type Exit,
  freePort,
  type Response,
  request,
  START_TIMEOUT_MS,
  type ServeProcess,
  spawnServe,
  waitFor,
} from '../e2e/support.js';

/** A single request to a node never takes longer than this. */
export const REQUEST_TIMEOUT_MS = 15_000;
/** How long a node may take to reach a replication state (following, caught up, promoted). */
export const STATE_TIMEOUT_MS = 30_000;
/** The directory a rejoining demoted leader writes its rolled-back entries to. */
export const ROLLBACK_DIR = 'rollback';

/** `GET /replication/status`, the fields this run reads. */
export interface ReplicationStatus {
  role: 'none' | 'leader' | 'follower';
  readOnly: boolean;
  term: number;
  lastSeq: number;
  fenced: { term: number; by: string; leader?: string; httpUrl?: string } | null;
  followers: Array<{ name: string; acknowledgedSeq: number; lagEntries: number }>;
  leader: null | {
    leader: string;
    connected: boolean;
    state: string;
    appliedSeq: number;
    leaderSeq: number | null;
    lastError: string | null;
    rollbacks: Array<{ file: string; after: number; through: number; entries: number }>;
  };
  divergences: number;
  lease: { required: boolean; valid: boolean } | null;
  autoFailover: { enabled: boolean; state: 'off' | 'watching' | 'promoted'; armed: boolean };
}

/** Every node started and not yet seen to exit, for killAllNow(). */
const live = new Set<ServeProcess>();

/**
 * SIGKILLs every node process still running, synchronously: for an exit handler, where
 * nothing can be awaited. The async stopAll() of test/e2e/support.ts is the normal way.
 */
export function killAllNow(): void {
  for (const proc of live) proc.child.kill('SIGKILL');
  live.clear();
}

/** Every node made, so a failed run can keep each one's output. */
const made = new Set<DocdbNode>();

/** Writes each node's output so far into its log directory. */
export function saveAllLogs(): void {
  for (const node of made) node.saveLog();
}

/** The failure a node or a check reports; the run prints its message and fails. */
export class FailoverCheckError extends Error {}

/**
 * How a node starts: its role, its leader when it follows, and further serve flags. A
 * `coordinated` node has no role flag: it takes its role from the coordinator its `extra`
 * flags name (issue 24), and listens for followers on its replication port when it leads.
 */
export interface NodeStart {
  role: 'leader' | 'follower' | 'coordinated';
  /** The node a follower follows. */
  leader?: DocdbNode;
  extra?: string[];
}

export class DocdbNode {
  private proc: ServeProcess | undefined;
  /** Times the node was started, for its log file names. */
  private starts = 0;

  private constructor(
    readonly name: string,
    readonly dataDir: string,
    readonly httpPort: number,
    readonly replicationPort: number,
    private readonly logDir: string,
  ) {}

  /**
   * A node with fresh ports and an empty data directory under `root`. `pickPort` hands out
   * its two ports (default: the e2e tests' freePort).
   */
  static async create(
    root: string,
    name: string,
    pickPort: () => Promise<number> = freePort,
  ): Promise<DocdbNode> {
    const httpPort = await pickPort();
    let replicationPort = await pickPort();
    while (replicationPort === httpPort) replicationPort = await pickPort();
    const dataDir = path.join(root, name, 'data');
    const logDir = path.join(root, name, 'logs');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.mkdirSync(logDir, { recursive: true });
    const node = new DocdbNode(name, dataDir, httpPort, replicationPort, logDir);
    made.add(node);
    return node;
  }

  get url(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  get running(): boolean {
    const child = this.proc?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** Starts `docdb serve` on this node's data directory and ports; waits for /health. */
  async start(options: NodeStart): Promise<void> {
    if (this.running) throw new FailoverCheckError(`${this.name} is already running`);
    const args = [
      '--node-name',
      this.name,
      '--port',
      String(this.httpPort),
      '--data-dir',
      this.dataDir,
    ];
    if (options.role !== 'coordinated') args.push('--replication-role', options.role);
    if (options.role !== 'follower') {
      args.push('--replication-port', String(this.replicationPort));
    } else {
      const leader = options.leader;
      if (!leader) throw new FailoverCheckError(`${this.name}: a follower needs its leader`);
      args.push('--leader-host', '127.0.0.1', '--leader-port', String(leader.replicationPort));
    }
    args.push(...(options.extra ?? []));
    this.starts++;
    const proc = spawnServe(args, { cwd: path.dirname(this.dataDir) });
    live.add(proc);
    let exit: Exit | undefined;
    proc.exited.then((how) => {
      exit = how;
      live.delete(proc);
    });
    this.proc = proc;
    await waitFor(
      () => {
        if (exit) {
          throw new FailoverCheckError(
            `${this.name} exited (${JSON.stringify(exit)}) before listening\n${this.outputTail()}`,
          );
        }
        return proc.stdout().includes('docdb node listening on') ? true : undefined;
      },
      START_TIMEOUT_MS,
      () => `${this.name} did not log its start-up line\n${this.outputTail()}`,
    );
    const health = await this.call('GET', '/health');
    if (health.status !== 200) {
      throw new FailoverCheckError(`${this.name}: GET /health answered ${health.status}`);
    }
  }

  /** SIGKILL: the node dies mid-write, as a crashed machine would. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    proc.child.kill('SIGKILL');
    await proc.waitForExit(EXIT_TIMEOUT_MS);
    this.saveLog();
    this.proc = undefined;
  }

  /** SIGTERM: the node finishes its requests, flushes and exits. */
  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    proc.child.kill('SIGTERM');
    const exit = await proc.waitForExit(EXIT_TIMEOUT_MS);
    this.saveLog();
    this.proc = undefined;
    if (exit.code !== 0) {
      throw new FailoverCheckError(
        `${this.name} exited with ${JSON.stringify(exit)} on SIGTERM; its log is in ${this.logDir}`,
      );
    }
  }

  /** Keeps the process's output beside its data, for a failed run's inspection. */
  saveLog(): void {
    if (!this.proc) return;
    const base = path.join(this.logDir, `start-${this.starts}`);
    fs.writeFileSync(`${base}.stdout.log`, this.proc.stdout());
    fs.writeFileSync(`${base}.stderr.log`, this.proc.stderr());
  }

  /** The tail of the running process's output, for failure messages. */
  outputTail(chars = 3000): string {
    if (!this.proc) return '(not running)';
    return `${this.proc.stdout().slice(-chars)}${this.proc.stderr().slice(-chars)}`;
  }

  async call(method: 'GET' | 'POST', route: string, body?: unknown): Promise<Response> {
    return request(`${this.url}${route}`, {
      method,
      ...(body !== undefined && { body }),
      ...(method === 'POST' && body === undefined && { body: {} }),
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
  }

  /** POST a replication transition; fails unless it answers 200. */
  async transition(route: string, body?: unknown): Promise<ReplicationStatus> {
    const response = await this.call('POST', `/replication/${route}`, body);
    if (response.status !== 200) {
      throw new FailoverCheckError(
        `${this.name}: POST /replication/${route} answered ${response.status}: ${response.text}`,
      );
    }
    return response.json as ReplicationStatus;
  }

  async status(): Promise<ReplicationStatus> {
    const response = await this.call('GET', '/replication/status');
    if (response.status !== 200) {
      throw new FailoverCheckError(
        `${this.name}: GET /replication/status answered ${response.status}: ${response.text}`,
      );
    }
    return response.json as ReplicationStatus;
  }

  /** Polls status until `check` accepts it; fails after `timeoutMs` naming `what`. */
  async waitForStatus(
    what: string,
    check: (status: ReplicationStatus) => boolean,
    timeoutMs = STATE_TIMEOUT_MS,
  ): Promise<ReplicationStatus> {
    let last: ReplicationStatus | undefined;
    return waitFor(
      async () => {
        last = await this.status();
        return check(last) ? last : undefined;
      },
      timeoutMs,
      () =>
        `${this.name} did not reach "${what}" within ${timeoutMs / 1000} s; last status ${JSON.stringify(last)}\n${this.outputTail()}`,
    );
  }

  /** Waits until this follower streams from its leader and has applied `seq` (or more). */
  async waitForApplied(seq: number, timeoutMs = STATE_TIMEOUT_MS): Promise<ReplicationStatus> {
    return this.waitForStatus(
      `following and applied seq ${seq}`,
      (s) =>
        s.role === 'follower' &&
        s.leader !== null &&
        s.leader.connected &&
        s.leader.state === 'streaming' &&
        s.leader.appliedSeq >= seq,
      timeoutMs,
    );
  }

  /**
   * Every document of `collection`, by `_id`, as its JSON text (read through the NDJSON
   * stream of `SELECT *`, so a large collection is never one response body in memory twice).
   */
  async documents(collection: string): Promise<Map<string, string>> {
    const response = await request(`${this.url}/query?stream=true`, {
      body: { sql: `SELECT * FROM ${collection}` },
      timeoutMs: REQUEST_TIMEOUT_MS * 4,
    });
    if (response.status !== 200) {
      throw new FailoverCheckError(
        `${this.name}: SELECT * FROM ${collection} answered ${response.status}: ${response.text.slice(0, 500)}`,
      );
    }
    const lines = response.text.split('\n').filter((line) => line !== '');
    const meta = JSON.parse(lines[0] ?? '{}') as { count?: number };
    const documents = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const document = JSON.parse(line) as { _id: string };
      documents.set(document._id, line);
    }
    if (meta.count !== undefined && meta.count !== documents.size) {
      throw new FailoverCheckError(
        `${this.name}: the NDJSON stream announced ${meta.count} documents and sent ${documents.size}`,
      );
    }
    return documents;
  }

  /** The `_id`s in this node's rollback files (their entries' documents). */
  rolledBackIds(): { files: string[]; entries: number; ids: Set<string> } {
    const dir = path.join(this.dataDir, ROLLBACK_DIR);
    const files = fs.existsSync(dir)
      ? fs.readdirSync(dir).filter((f) => f.endsWith('.ndjson'))
      : [];
    const ids = new Set<string>();
    let entries = 0;
    for (const file of files) {
      const lines = fs.readFileSync(path.join(dir, file), 'utf8').split('\n');
      // Line 1 describes the rollback; each further line is one change-log entry.
      for (const line of lines.slice(1)) {
        if (line === '') continue;
        entries++;
        collectIds(JSON.parse(line), ids);
      }
    }
    return { files, entries, ids };
  }
}

/** The ids of the documents an entry inserted (the load only inserts). */
function collectIds(entry: unknown, ids: Set<string>): void {
  const { op, documents } = entry as { op?: string; documents?: Array<{ id: string }> };
  if (op !== 'insert' || !documents) return;
  for (const document of documents) ids.add(document.id);
}
