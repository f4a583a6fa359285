/**
 * The clients of the partition part: a few clients, each with one insert in flight, writing
 * small documents with a unique `key` into the failover run's collection, straight to the
 * nodes' HTTP ports (never through a proxy). Some stick to one node; others follow the leader, moving where a 503 points or to
 * the other node. Every 201 is recorded with its node, `_id` and client-side send and receive
 * times (one clock for all); a 503 or a failed connection is counted and never recorded as
 * acknowledged; any other answer is unexpected. It never decides whether a run passed.
 */

import { request, waitFor } from '../e2e/support.js';
import type { DocdbNode } from '../failover/cluster.js';
import { LOAD_COLLECTION, PausableClients } from '../failover/load.js';
import type { AckRecord } from './ack-windows.js';

/** A client waits this long after a 503 or a failed connection before its next write. */
const RETRY_DELAY_MS = 50;
/** And this long after a 201: keeps the document count of a long run bounded. */
const THINK_MS = 10;
/** No insert waits longer (a durable write answers 503 after the sync timeout first). */
const INSERT_TIMEOUT_MS = 10_000;
/** Unexpected answers kept for the failure message; the rest are counted. */
const UNEXPECTED_KEPT_MAX = 10;
/** Padding that makes each document about 100 bytes. */
const PAD = 'x'.repeat(48);

/** One acknowledged write. */
export interface Ack extends AckRecord {
  id: string;
  key: string;
  client: string;
}

/** How a client picks the node it writes to. */
export type ClientRole = { kind: 'sticky'; node: DocdbNode } | { kind: 'follower' };

export interface PartitionCounters {
  acknowledged: number;
  /** 503s by their `code` (a 503 without one counts under `503`). */
  refused: Record<string, number>;
  /** Refused, reset or timed-out connections. */
  failedConnections: number;
  /** Answers other than 201 and 503: bugs. */
  unexpected: number;
}

/** The fields of a 503 body the clients read. */
interface RefusalBody {
  code?: string;
  leader?: string;
  details?: { leader?: string };
}

export class PartitionLoad extends PausableClients {
  /** Every acknowledged write, in the order the clients received them. */
  readonly acks: Ack[] = [];
  readonly counters: PartitionCounters = {
    acknowledged: 0,
    refused: {},
    failedConnections: 0,
    unexpected: 0,
  };
  readonly unexpectedAnswers: string[] = [];
  private written = 0;

  /**
   * `nodes` are the two nodes; `roles` one entry per client; followers of the leader start
   * at `leader` and find their own way from there.
   */
  constructor(
    private readonly nodes: readonly [DocdbNode, DocdbNode],
    private readonly roles: readonly ClientRole[],
    private readonly leader: DocdbNode,
    /** Marks the documents of one pair of nodes. */
    private readonly tag: string,
  ) {
    super();
  }

  start(): void {
    this.roles.forEach((role, i) => {
      const name = role.kind === 'sticky' ? `${role.node.name}-sticky-${i}` : `follower-${i}`;
      this.spawn(() => this.client(name, role));
    });
  }

  /** Waits (bounded) until `count` more writes than now are acknowledged. */
  async waitForMore(count: number, timeoutMs: number): Promise<void> {
    const goal = this.acks.length + count;
    await waitFor(
      () => (this.acks.length >= goal ? true : undefined),
      timeoutMs,
      () =>
        `the clients reached ${this.acks.length} of ${goal} acknowledged writes within ${timeoutMs / 1000} s (${JSON.stringify(this.counters)})`,
    );
  }

  private other(node: DocdbNode): DocdbNode {
    return node === this.nodes[0] ? this.nodes[1] : this.nodes[0];
  }

  /** The node a 503 names as leader (an http URL), or the other node when it names none. */
  private next(from: DocdbNode, body: RefusalBody | undefined): DocdbNode {
    const named = body?.leader ?? body?.details?.leader;
    if (typeof named === 'string') {
      try {
        const port = Number(new URL(named).port);
        const node = this.nodes.find((n) => n.httpPort === port);
        if (node) return node;
      } catch {
        // Not a URL: fall through to the other node.
      }
    }
    return this.other(from);
  }

  private async client(name: string, role: ClientRole): Promise<void> {
    let target = role.kind === 'sticky' ? role.node : this.leader;
    while (await this.turn()) {
      const node = target;
      const key = `${this.tag}-${this.written++}`;
      const sentMs = performance.now();
      let delayMs = RETRY_DELAY_MS;
      try {
        const response = await request(`${node.url}/collections/${LOAD_COLLECTION}`, {
          body: { key, client: name, pad: PAD },
          timeoutMs: INSERT_TIMEOUT_MS,
        });
        const receivedMs = performance.now();
        if (response.status === 201) {
          const { id } = response.json as { id: string };
          this.acks.push({ node: node.name, id, key, client: name, sentMs, receivedMs });
          this.counters.acknowledged++;
          delayMs = THINK_MS;
        } else if (response.status === 503) {
          const body = response.json as RefusalBody | undefined;
          const code = body?.code ?? '503';
          this.counters.refused[code] = (this.counters.refused[code] ?? 0) + 1;
          if (role.kind === 'follower') target = this.next(node, body);
        } else {
          this.counters.unexpected++;
          if (this.unexpectedAnswers.length < UNEXPECTED_KEPT_MAX) {
            this.unexpectedAnswers.push(
              `${name} → ${node.name}: ${response.status} ${response.text.slice(0, 300)}`,
            );
          }
        }
      } catch {
        this.counters.failedConnections++;
        if (role.kind === 'follower') target = this.other(node);
      }
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
