/**
 * The router (DESIGN §7, ADR 0014): the node's query API over the shards of a cluster.json,
 * with no transport of its own (server/router-app.ts serves it over HTTP). It parses and
 * targets statements with the pure SQL front end, asks shards through the typed client only,
 * and merges their parts; it never answers a partial result as a whole one.
 */

import { connect, type DocdbClient, type QueryAnswer } from '../client/index.js';
import { DbError, isDbError } from '../errors/index.js';
import { parse } from '../sql/parser/index.js';
import type { QueryResult } from '../types/index.js';
import type { ClusterConfig, ClusterShard } from './config.js';
import { mergeAggregate, mergeRows, type ShardPart } from './merge.js';
import { routeSelect, type SelectRoute } from './route-plan.js';

/** Codes that mean a shard did not give a docdb answer, as opposed to refusing the request. */
const UNAVAILABLE = ['ERR_CLIENT_UNREACHABLE', 'ERR_CLIENT_TIMEOUT', 'ERR_CLIENT_PROTOCOL'];

/** Options of a Router. */
export interface RouterOptions {
  /** Each shard request's timeout (the client's default when absent). */
  timeoutMs?: number;
}

/** The plan header of a routed statement: `SINGLE_SHARD(s1): …` or `SCATTER(n): …`. */
export function routedPlan(
  route: { kind: 'single' | 'scatter'; count: number; shard: string },
  plan: string,
) {
  return route.kind === 'single'
    ? `SINGLE_SHARD(${route.shard}): ${plan}`
    : `SCATTER(${route.count}): ${plan}`;
}

/** A stateless router over one cluster config: one pooled client per shard. */
export class Router {
  private readonly clients = new Map<string, DocdbClient>();

  constructor(
    readonly config: ClusterConfig,
    options: RouterOptions = {},
  ) {
    for (const shard of config.shards) {
      this.clients.set(
        shard.name,
        connect(shard.endpoint, {
          ...(shard.apiKey !== undefined && { apiKey: shard.apiKey }),
          ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
        }),
      );
    }
  }

  /**
   * Runs `fn` against one shard. A shard that does not answer becomes ERR_SHARD_UNAVAILABLE
   * naming it; a shard's own refusal (a SQL error, a 404) passes through as it is.
   */
  async ask<T>(shard: ClusterShard, fn: (client: DocdbClient) => Promise<T>): Promise<T> {
    try {
      return await fn(this.clients.get(shard.name) as DocdbClient);
    } catch (error) {
      if (isDbError(error) && UNAVAILABLE.includes(error.code)) {
        throw new DbError(
          'ERR_SHARD_UNAVAILABLE',
          `shard ${shard.name} (${shard.endpoint}) did not answer: ${error.message}`,
          { shard: shard.name },
        );
      }
      throw error;
    }
  }

  /** Runs `fn` on the first of `shards` that answers (a replicated read). */
  async askAny<T>(
    shards: readonly ClusterShard[],
    fn: (client: DocdbClient) => Promise<T>,
  ): Promise<{ shard: ClusterShard; answer: T }> {
    let last: unknown;
    for (const shard of shards) {
      try {
        return { shard, answer: await this.ask(shard, fn) };
      } catch (error) {
        if (!isDbError(error, 'ERR_SHARD_UNAVAILABLE')) throw error;
        last = error;
      }
    }
    throw last ?? new DbError('ERR_SHARD_UNAVAILABLE', 'the cluster config lists no shards');
  }

  /** `POST /query` through the router: one statement, answered as one node would. */
  async query(sql: string, params: readonly unknown[] = []): Promise<QueryResult> {
    const started = performance.now();
    const { statement } = parse(sql);
    if (statement.kind !== 'select') {
      throw new DbError(
        'ERR_BAD_ARGUMENT',
        `the router does not route ${statement.kind.toUpperCase()} statements yet`,
      );
    }
    const route = routeSelect(this.config, statement, sql, params);
    const result = await this.runSelect(route);
    return { ...result, executionMs: performance.now() - started };
  }

  private async runSelect(route: SelectRoute): Promise<QueryResult> {
    const call = (client: DocdbClient) =>
      client.query(route.sql, route.params, route.shard ? { shard: route.shard } : {});
    if (route.kind === 'single') {
      const { shard, answer } = route.anyOf
        ? await this.askAny(route.shards, call)
        : {
            shard: route.shards[0] as ClusterShard,
            answer: await this.ask(route.shards[0] as ClusterShard, call),
          };
      const { headers: _, sortKeys: __, ...result } = answer;
      return {
        ...result,
        plan: routedPlan({ kind: 'single', count: 1, shard: shard.name }, answer.plan),
      };
    }
    const answers: QueryAnswer[] = await Promise.all(route.shards.map((s) => this.ask(s, call)));
    const parts: ShardPart[] = answers;
    const merge = route.merge;
    const documents =
      merge === undefined
        ? parts.flatMap((p) => p.documents)
        : merge.kind === 'rows'
          ? mergeRows(parts, merge)
          : mergeAggregate(parts, merge);
    const plan = routedPlan(
      { kind: 'scatter', count: route.shards.length, shard: '' },
      (answers[0] as QueryAnswer).plan,
    );
    return { plan, count: documents.length, executionMs: 0, documents };
  }

  /** Closes every shard client. */
  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()));
  }
}
