/**
 * The coordinator's one way to etcd (ADR 0028): the few etcd v3 calls leadership needs, over
 * the `etcd3` client, each bounded by a timeout and failing as ERR_COORDINATOR_UNREACHABLE
 * naming the coordinator URL; a call that got no answer starts a fresh connection, since the
 * one it used may be dead. The only importer of etcd3 and cockatiel; it knows nothing of
 * leaders or members, only keys, leases, transactions and watches.
 */

import { ConstantBackoff, noop } from 'cockatiel';
import {
  type IKeyValue,
  type IDuplexStream,
  type ILeaseKeepAliveRequest,
  type ILeaseKeepAliveResponse,
  Etcd3,
  GRPCDeadlineExceededError,
  type Watcher,
} from 'etcd3';
import { DbError, dbError } from '../errors/index.js';
import { type CoordinatorAddress, formatHost } from './coordinator-url.js';

/** A key as etcd holds it, with the revisions the coordinator reasons with. */
export interface StoredKey {
  key: string;
  value: string;
  /** The revision of the put that created the key (the leader's term round). */
  createRevision: number;
  modRevision: number;
  /** The lease the key is attached to ('0' for none). */
  lease: string;
}

/** A lease etcd granted. */
export interface GrantedLease {
  id: string;
  /** The TTL etcd granted, at least the one asked for (etcd raises short ones). */
  ttlSeconds: number;
}

/** One write of a transaction. */
export type TxnWrite =
  | { kind: 'put'; key: string; value: string; lease?: string }
  | { kind: 'delete'; key: string };

/** One condition of a transaction: the key's create or mod revision equals a number. */
export interface TxnCondition {
  key: string;
  target: 'Create' | 'Mod';
  revision: number;
}

/** A change a watch reports: the key now (a put) or its absence (a delete). */
export type KeyChange =
  | { kind: 'put'; stored: StoredKey }
  | { kind: 'delete'; key: string; revision: number };

/** How long a watch waits before reconnecting to an etcd it lost. */
const WATCH_RECONNECT_MS = 250;

/** The etcd calls of the coordinator, bounded by `callTimeoutMs` each. */
export class EtcdClient {
  private etcd: Etcd3;
  /** Counts fresh connections: a call that times out replaces only the one it used. */
  private generation = 0;
  private readonly watches = new Set<KeyWatch>();
  private keepAlives: IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse> | undefined;
  /** The keepalive waiting for etcd's answer, per lease: one at a time for each. */
  private readonly pendingRenewals = new Map<string, (ttlSeconds: number | Error) => void>();
  private closed = false;

  constructor(
    readonly address: CoordinatorAddress,
    readonly callTimeoutMs: number,
  ) {
    this.etcd = this.connect();
  }

  private connect(): Etcd3 {
    const callTimeoutMs = this.callTimeoutMs;
    return new Etcd3({
      hosts: this.address.hosts.map((host) => `http://${formatHost(host)}`),
      dialTimeout: callTimeoutMs,
      // A connection of its own, not one shared with an earlier client: reconnecting after a
      // timeout must not pick up the dead connection again.
      grpcOptions: { 'grpc.use_local_subchannel_pool': 1 },
      // Every unary call carries a deadline; streams are bounded by `bounded` below.
      defaultCallOptions: (context) =>
        context.isStream ? {} : { deadline: Date.now() + callTimeoutMs },
      // No retries and no circuit breaker of the library's: a retry could outlast a lease,
      // and a breaker would refuse calls for seconds after etcd is back. Callers retry.
      faultHandling: {
        host: () => noop,
        global: noop,
        watchBackoff: new ConstantBackoff(WATCH_RECONNECT_MS).next(),
      },
    });
  }

  /**
   * Replaces the connection after a call got no answer: on a link that drops packets (a
   * partition, a blackholing proxy) gRPC keeps waiting on the old TCP connection, which
   * never recovers, where a new one works as soon as the network does.
   */
  private reconnect(generation: number): void {
    if (this.closed || generation !== this.generation) return;
    const old = this.etcd;
    this.generation += 1;
    this.etcd = this.connect();
    this.dropKeepAlives(new Error('reconnecting after a call got no answer'));
    for (const watch of this.watches) watch.restart(this.etcd);
    old.close();
  }

  /** Checks that etcd answers: the first call a coordinator makes, so a wrong URL fails at once. */
  async ping(): Promise<void> {
    await this.bounded('a status request', this.etcd.maintenance.status({}));
  }

  async grantLease(ttlSeconds: number): Promise<GrantedLease> {
    const answer = await this.bounded(
      'a lease grant',
      this.etcd.leaseClient.leaseGrant({ TTL: ttlSeconds, ID: 0 }),
    );
    if (answer.error) throw this.unreachable('a lease grant', new Error(answer.error));
    return { id: answer.ID, ttlSeconds: Number(answer.TTL) };
  }

  /**
   * Renews a lease once; resolves with the TTL etcd restarted it with, 0 when etcd no longer
   * has the lease (expired or revoked). One renewal per lease at a time.
   */
  async renewLease(id: string, timeoutMs: number): Promise<number> {
    if (this.pendingRenewals.has(id))
      throw new Error(`a renewal of lease ${id} is already waiting`);
    const stream = await this.bounded('a lease keepalive', this.keepAliveStream(), timeoutMs);
    const answer = new Promise<number>((resolve, reject) => {
      this.pendingRenewals.set(id, (ttl) => (ttl instanceof Error ? reject(ttl) : resolve(ttl)));
    });
    stream.write({ ID: id });
    try {
      return await this.bounded('a lease keepalive', answer, timeoutMs);
    } catch (error) {
      // An unanswered renewal may mean a stream stuck on a dead connection: start afresh.
      this.dropKeepAlives(error as Error);
      throw error;
    } finally {
      this.pendingRenewals.delete(id);
    }
  }

  async revokeLease(id: string): Promise<void> {
    try {
      await this.bounded('a lease revoke', this.etcd.leaseClient.leaseRevoke({ ID: id }));
    } catch (error) {
      // A lease etcd no longer knows is as revoked as it gets.
      if (!/not found/i.test(String((error as DbError).message))) throw error;
    }
  }

  /** The key (undefined when absent), and the revision it was read at. */
  async get(key: string): Promise<{ stored: StoredKey | undefined; revision: number }> {
    const answer = await this.bounded(
      `a read of ${key}`,
      this.etcd.kv.range({ key: Buffer.from(key) }),
    );
    const found = answer.kvs[0];
    return {
      stored: found === undefined ? undefined : storedKey(found),
      revision: Number(answer.header.revision),
    };
  }

  /** The keys under `prefix`, and the revision they were read at. */
  async getPrefix(prefix: string): Promise<{ keys: StoredKey[]; revision: number }> {
    const answer = await this.bounded(
      `a read of ${prefix}*`,
      this.etcd.getAll().prefix(prefix).exec(),
    );
    return { keys: answer.kvs.map(storedKey), revision: Number(answer.header.revision) };
  }

  async put(key: string, value: string, lease?: string): Promise<void> {
    const builder = this.etcd.put(key).value(value);
    await this.bounded(`a write of ${key}`, (lease ? builder.lease(lease) : builder).exec());
  }

  /**
   * Runs `writes` only if every condition holds, in one etcd transaction. Resolves with the
   * transaction's revision (the revision of its puts) when it ran, undefined when it did not.
   */
  async transaction(
    what: string,
    conditions: readonly TxnCondition[],
    writes: readonly TxnWrite[],
  ): Promise<number | undefined> {
    const [first, ...rest] = conditions;
    if (first === undefined) throw new Error('a transaction needs a condition');
    let txn = this.etcd.if(first.key, first.target, '==', first.revision);
    for (const condition of rest)
      txn = txn.and(condition.key, condition.target, '==', condition.revision);
    txn = txn.then(
      ...writes.map((write) => {
        if (write.kind === 'delete') return this.etcd.delete().key(write.key);
        const put = this.etcd.put(write.key).value(write.value);
        return write.lease ? put.lease(write.lease) : put;
      }),
    );
    const answer = await this.bounded(what, txn.commit());
    return answer.succeeded ? Number(answer.header.revision) : undefined;
  }

  /**
   * Watches `key` from `fromRevision` on; `onChange` hears each put and delete in order, and
   * `onReconnect` each time the watch is re-established after losing etcd (a caller re-reads
   * then, since changes may have been compacted away meanwhile). The watch retries for as
   * long as it is open, and moves to each fresh connection. Resolves once etcd accepted it.
   */
  async watch(
    key: string,
    fromRevision: number,
    onChange: (change: KeyChange) => void,
    onReconnect: () => void,
  ): Promise<{ close: () => Promise<void> }> {
    const watch = new KeyWatch(key, fromRevision, onChange, onReconnect);
    try {
      await this.bounded(`a watch of ${key}`, watch.start(this.etcd));
    } catch (error) {
      watch.close();
      throw error;
    }
    this.watches.add(watch);
    return {
      close: async () => {
        this.watches.delete(watch);
        watch.close();
      },
    };
  }

  close(): void {
    this.closed = true;
    this.dropKeepAlives(new Error('the coordinator was closed'));
    for (const watch of this.watches) watch.close();
    this.watches.clear();
    this.etcd.close();
  }

  /** The shared keepalive stream, opened on first use and after one failed. */
  private async keepAliveStream(): Promise<
    IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse>
  > {
    if (this.keepAlives) return this.keepAlives;
    const stream = await this.etcd.leaseClient.leaseKeepAlive();
    stream.on('data', (answer) => this.pendingRenewals.get(answer.ID)?.(Number(answer.TTL)));
    stream.on('error', (error) =>
      this.dropKeepAlives(this.unreachable('a lease keepalive', error)),
    );
    stream.on('end', () => this.dropKeepAlives(new Error('etcd ended the keepalive stream')));
    this.keepAlives = stream;
    return stream;
  }

  private dropKeepAlives(error: Error): void {
    const stream = this.keepAlives;
    this.keepAlives = undefined;
    if (stream) {
      try {
        stream.cancel();
      } catch {
        // Already gone.
      }
    }
    for (const settle of this.pendingRenewals.values()) settle(error);
  }

  /** `work` within `timeoutMs`, its failure or lateness as ERR_COORDINATOR_UNREACHABLE. */
  private async bounded<T>(
    what: string,
    work: Promise<T>,
    timeoutMs = this.callTimeoutMs,
  ): Promise<T> {
    const generation = this.generation;
    const lateness = (): DbError => {
      this.reconnect(generation);
      return this.unreachable(what, new Error(`no answer within ${timeoutMs} ms`));
    };
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(lateness()), timeoutMs);
    });
    try {
      return await Promise.race([work, late]);
    } catch (error) {
      if (error instanceof DbError) throw error;
      // A unary call's own gRPC deadline is this same bound, set as it began: it may fire just
      // before the timer, and is the same lateness (a reconnect included).
      if (error instanceof GRPCDeadlineExceededError) throw lateness();
      throw this.unreachable(what, error as Error);
    } finally {
      clearTimeout(timer);
      // A call that lost the race may still fail later; nobody waits for it.
      work.catch(() => {});
    }
  }

  private unreachable(what: string, cause: Error): DbError {
    return dbError('ERR_COORDINATOR_UNREACHABLE', 'callFailed', {
      url: this.address.url,
      what,
      cause: cause.message,
    });
  }
}

function storedKey(kv: IKeyValue): StoredKey {
  return {
    key: kv.key.toString(),
    value: kv.value.toString(),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
    lease: kv.lease,
  };
}

/** One key's watch, re-created on a fresh connection from the revision after the last change. */
class KeyWatch {
  private watcher: Watcher | undefined;
  private attempt = 0;
  private closed = false;

  constructor(
    private readonly key: string,
    private nextRevision: number,
    private readonly onChange: (change: KeyChange) => void,
    private readonly onReconnect: () => void,
  ) {}

  /** Creates the watcher on `etcd`; resolves once etcd accepted it. */
  async start(etcd: Etcd3): Promise<void> {
    this.attempt += 1;
    const attempt = this.attempt;
    const watcher = await etcd
      .watch()
      .key(this.key)
      .startRevision(String(this.nextRevision))
      .create();
    if (this.closed || attempt !== this.attempt) {
      watcher.cancel().catch(() => {});
      return;
    }
    this.watcher = watcher;
    let lost = false;
    watcher.on('put', (kv) => {
      this.nextRevision = Number(kv.mod_revision) + 1;
      this.onChange({ kind: 'put', stored: storedKey(kv) });
    });
    watcher.on('delete', (kv) => {
      this.nextRevision = Number(kv.mod_revision) + 1;
      this.onChange({ kind: 'delete', key: this.key, revision: Number(kv.mod_revision) });
    });
    watcher.on('disconnected', () => {
      lost = true;
    });
    watcher.on('connected', () => {
      if (!lost) return;
      lost = false;
      this.onReconnect();
    });
    watcher.on('error', () => {});
  }

  /** Moves the watch to a fresh connection, trying again until it is accepted or closed. */
  restart(etcd: Etcd3): void {
    this.watcher?.cancel().catch(() => {});
    this.watcher = undefined;
    const attempt = this.attempt + 1;
    this.start(etcd).then(
      () => {
        if (!this.closed && attempt === this.attempt) this.onReconnect();
      },
      () => {
        if (this.closed || attempt !== this.attempt) return;
        setTimeout(() => this.restart(etcd), WATCH_RECONNECT_MS);
      },
    );
  }

  close(): void {
    this.closed = true;
    this.attempt += 1;
    this.watcher?.cancel().catch(() => {});
    this.watcher = undefined;
  }
}
