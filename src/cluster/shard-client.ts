/**
 * The one way the cluster's code opens a client to a node of a shard of cluster.json: the
 * shard's endpoint (or one member of its replica set) with its API key, and the caller's
 * pool and timeout choices. Its calls of documents and queries go over the wire (a few
 * pipelined binary connections per node; src/wire/) and the rest over HTTP; a node that does
 * not take the wire's Upgrade (an older one) is asked everything over HTTP.
 */

import {
  CLIENT_RETRIES_DEFAULT,
  CLIENT_RETRY_PAUSE_MS,
  CLIENT_TIMEOUT_MS_DEFAULT,
  type ClientOptions,
  DocdbClient,
} from '../client/index.js';
import { dbError } from '../errors/index.js';
import type * as api from '../types/api.js';
import type { BulkResult, Document } from '../types/index.js';
import { jsonText } from '../util/index.js';
import { NO_WIRE, WirePool, type WireOp } from '../wire/index.js';
import { type ClusterShard, shardMembers } from './config.js';

/** Options of a shard's client: the HTTP client's, and whether to speak the wire. */
export interface ShardClientOptions extends ClientOptions {
  /** Default true; false sends every call over HTTP (a comparison, a test). */
  wire?: boolean;
}

/**
 * A client to `url` (by default the shard's endpoint, or its first member), carrying the
 * shard's `apiKey` from cluster.json when it has one.
 */
export function shardClient(
  shard: ClusterShard,
  options: ShardClientOptions = {},
  url = shardMembers(shard)[0] as string,
): DocdbClient {
  const { wire = true, ...http } = options;
  const withKey = { ...http, ...(shard.apiKey !== undefined && { apiKey: shard.apiKey }) };
  return wire ? new WireClient(url, withKey) : new DocdbClient(url, withKey);
}

/**
 * A DocdbClient whose calls of the wire's operations (src/wire/protocol.ts WIRE_OPS) go over
 * the wire when the node speaks it: the same arguments an HTTP call would carry, the same
 * answers (the route's JSON text) and the same errors (code, message, status and details),
 * so the router above cannot tell which way a call went.
 */
export class WireClient extends DocdbClient {
  private readonly wire: WirePool;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    super(baseUrl, options);
    this.wire = new WirePool(this.baseUrl, {
      apiKey: options.apiKey,
      ...(options.tls !== undefined && { tls: options.tls }),
      timeoutMs: options.timeoutMs ?? CLIENT_TIMEOUT_MS_DEFAULT,
      retries: options.retries ?? CLIENT_RETRIES_DEFAULT,
      retryPauseMs: CLIENT_RETRY_PAUSE_MS,
    });
  }

  /**
   * `POST /query` over the wire. With `rows: 'json'` the node sends the rows apart as their
   * JSON text where the answer fits one frame, and they come back as JsonText, never parsed
   * here (the router splices them into its own answer); otherwise rows are objects.
   */
  override async query(
    sql: string,
    params?: readonly unknown[],
    options: api.QueryOptions = {},
  ): Promise<api.QueryAnswer> {
    const shard = options.shard === undefined ? {} : { shard: options.shard };
    const rows = options.rows === 'json' ? ROWS_JSON : {};
    const reply = await this.wire.call('query', [sql, params ?? [], { ...shard, ...rows }]);
    if (reply === NO_WIRE) return super.query(sql, params, options);
    const body =
      typeof reply === 'object'
        ? withRows(this.parsed<Omit<api.QueryAnswer, 'headers'>>('query', reply.json), reply.rows)
        : this.parsed<Omit<api.QueryAnswer, 'headers'>>('query', reply as string);
    // What the HTTP client reads from the X-DOCDB-* headers, which the route fills from the body.
    const headers = {
      plan: body.plan,
      count: body.count,
      executionMs: Number(body.executionMs.toFixed(3)),
      requestId: undefined,
    };
    return { ...body, headers };
  }

  override async get(collection: string, id: string): Promise<Document | undefined> {
    return (await this.getTagged(collection, id))?.doc;
  }

  override async getTagged(collection: string, id: string) {
    const answer = await this.ask<api.TaggedDocument>('getTagged', [collection, id]);
    return answer === NO_WIRE ? super.getTagged(collection, id) : answer;
  }

  override async getByKey(collection: string, path: string, value: api.KeyValue) {
    const answer = await this.ask<api.ByKeyAnswer>('getByKey', [collection, path, String(value)]);
    return answer === NO_WIRE ? super.getByKey(collection, path, value) : answer;
  }

  override async collections(): Promise<string[]> {
    const answer = await this.ask<string[]>('collections', []);
    return answer === NO_WIRE ? super.collections() : answer;
  }

  override async insert(collection: string, doc: Document): Promise<api.InsertAnswer> {
    const answer = await this.ask<api.InsertAnswer>('insert', [collection, doc]);
    return answer === NO_WIRE ? super.insert(collection, doc) : answer;
  }

  override async bulk(
    collection: string,
    docs: Document[],
    options: api.BulkOptions = {},
  ): Promise<BulkResult> {
    const flags = { atomic: options.atomic === true, skipIndexes: options.skipIndexes === true };
    const answer = await this.ask<BulkResult>('bulk', [collection, docs, flags]);
    return answer === NO_WIRE ? super.bulk(collection, docs, options) : answer;
  }

  override async replace(
    collection: string,
    id: string,
    doc: Document,
    condition: api.WriteCondition = {},
  ): Promise<api.ReplaceAnswer> {
    const args = [collection, id, doc, conditionOf(condition)];
    const answer = await this.ask<api.ReplaceAnswer>('replace', args);
    return answer === NO_WIRE ? super.replace(collection, id, doc, condition) : answer;
  }

  override async replaceByKey(
    collection: string,
    path: string,
    value: api.KeyValue,
    doc: Document,
    condition: api.WriteCondition = {},
  ): Promise<api.ReplaceByKeyAnswer> {
    const args = [collection, path, String(value), doc, conditionOf(condition)];
    const answer = await this.ask<api.ReplaceByKeyAnswer>('replaceByKey', args);
    return answer === NO_WIRE
      ? super.replaceByKey(collection, path, value, doc, condition)
      : answer;
  }

  override async delete(
    collection: string,
    id: string,
    condition: api.WriteCondition = {},
  ): Promise<api.DeleteAnswer> {
    const answer = await this.ask<api.DeleteAnswer>('delete', [
      collection,
      id,
      conditionOf(condition),
    ]);
    return answer === NO_WIRE ? super.delete(collection, id, condition) : answer;
  }

  override async deleteByKey(collection: string, path: string, value: api.KeyValue) {
    const answer = await this.ask<api.DeleteAnswer>('deleteByKey', [
      collection,
      path,
      String(value),
    ]);
    return answer === NO_WIRE ? super.deleteByKey(collection, path, value) : answer;
  }

  override async close(): Promise<void> {
    await Promise.all([this.wire.close(), super.close()]);
  }

  /** `op` over the wire: its answer parsed (undefined for "none"), or NO_WIRE for HTTP. */
  private async ask<T>(op: WireOp, args: unknown[]): Promise<T | typeof NO_WIRE> {
    const reply = await this.wire.call(op, args);
    if (reply === NO_WIRE || reply === undefined) return reply as T | typeof NO_WIRE;
    return this.parsed<T>(op, typeof reply === 'string' ? reply : reply.json);
  }

  /** An answer's JSON text parsed; text that is no JSON is the node's protocol broken. */
  private parsed<T>(op: WireOp, json: string): T {
    try {
      return JSON.parse(json) as T;
    } catch {
      const url = `${this.baseUrl} (${op})`;
      throw dbError('ERR_CLIENT_PROTOCOL', 'answerNotJson', { url, text: json.slice(0, 200) });
    }
  }
}

const ROWS_JSON = { rows: 'json' } as const;

/**
 * A query's answer whose rows came apart: `documents` (empty, in the node's key order) set to
 * the rows as JsonText. The answer's own type says Document; the caller that asked for
 * `rows: 'json'` reads them as JsonText (the router's `rows` option).
 */
function withRows<T extends { documents: unknown[] }>(body: T, rows: string[]): T {
  body.documents = rows.map(jsonText);
  return body;
}

/** A write condition as the route reads it from `If-Match`: the tag, or none. */
function conditionOf(condition: api.WriteCondition): api.WriteCondition {
  return condition.ifMatch === undefined ? {} : { ifMatch: condition.ifMatch };
}
