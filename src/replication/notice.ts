/**
 * A promoted node's notice to the node it replaced. A follower that promotes itself knows
 * the address it followed; from then on, about once a second, it connects there and tells
 * that node its new term (protocol.ts, the notice). The old leader, if it still leads,
 * compares terms: the older one stops taking writes. So after a partition heals the old
 * leader is fenced within a second or so, without a person. It stops once told, once the old
 * node is seen following (it then has the new term anyway), or when this node stops leading.
 */

import { assert, dbError } from '../errors/index.js';
import type { Introduction } from './handshake.js';
import { checkProof, introduce } from './handshake.js';
import type { ReplicationLog } from './log.js';
import { connectPeer } from './peer.js';
import { sleep } from './timing.js';

/** How often a promoted node tries to reach the node it replaced. */
export const NOTICE_RETRY_MS = 1000;
/** How long one try may take, connection and answers (a blackholed link answers nothing). */
export const NOTICE_TRY_TIMEOUT_MS = 1000;

export interface NoticeOptions {
  /** The node it replaced: where it followed it, and its name when known. */
  host: string;
  port: number;
  target: string;
  secret: string | undefined;
  tls: boolean;
  log: ReplicationLog;
  /** What to say: this node's hello with the notice set, made fresh for each try. */
  hello(): Introduction;
  /** True once there is no need to tell it any more (it follows this node). */
  stopWhen(): boolean;
  /** The old node's term is newer than this node's: this node is the stale one. */
  onNewerTerm(term: number, by: string): void;
}

export class Notifier {
  private readonly stopper = new AbortController();
  private running: Promise<void> | undefined;
  /** The reason the last try failed, logged once until it changes. */
  private lastError: string | undefined;
  /** Set once the old node answered. */
  private done = false;

  constructor(private readonly options: NoticeOptions) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** Stops trying; resolves once no try is running. */
  async stop(): Promise<void> {
    this.stopper.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    const { log, target } = this.options;
    while (!this.stopper.signal.aborted && !this.done) {
      if (this.options.stopWhen()) {
        log.info(`replication: ${target} follows this node now; no notice needed`);
        break;
      }
      const startedMs = performance.now();
      try {
        await this.tryOnce();
      } catch (error) {
        const message = (error as Error).message;
        if (message !== this.lastError) {
          log.info(
            `replication: cannot tell ${target} of this node's term yet (${message}); trying every second`,
          );
        }
        this.lastError = message;
      }
      if (this.done) break;
      // Tries start a second apart, however long one waited on a silent link.
      await sleep(NOTICE_RETRY_MS - (performance.now() - startedMs), this.stopper.signal);
    }
  }

  private async tryOnce(): Promise<void> {
    const { host, port, secret, log, target } = this.options;
    const peer = await connectPeer(host, port, {
      tls: this.options.tls,
      timeoutMs: NOTICE_TRY_TIMEOUT_MS,
      what: target,
    });
    const abort = () => peer.close();
    this.stopper.signal.addEventListener('abort', abort, { once: true });
    try {
      const hello = this.options.hello();
      const { nonce } = await introduce(peer, hello, { secret, timeoutMs: NOTICE_TRY_TIMEOUT_MS });
      const answer = await peer.receive(['noticed', 'refused'], NOTICE_TRY_TIMEOUT_MS);
      if (answer.t === 'refused') {
        throw dbError('ERR_REPLICATION_REFUSED', 'notice', {
          target,
          reason: answer.reason,
        });
      }
      assert(answer.t === 'noticed', `a notice was answered with ${answer.t}`);
      if (
        secret !== undefined &&
        !checkProof(secret, 'leader', nonce, answer.proof, peer.binding)
      ) {
        throw dbError('ERR_REPLICATION_AUTH', 'noticeProof', { target });
      }
      this.done = true;
      if (answer.fenced) {
        log.warn(`replication: told ${target} of term ${hello.term}; it stopped taking writes`);
      } else if (answer.term > hello.term) {
        this.options.onNewerTerm(answer.term, target);
      } else {
        log.info(`replication: ${target} was already in term ${answer.term}`);
      }
    } finally {
      this.stopper.signal.removeEventListener('abort', abort);
      peer.close();
    }
  }
}
