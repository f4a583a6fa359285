/**
 * countCollections: a hash collection's counts summed over its shards, a replicated one's
 * counted once (the first copy in cluster.json's order), an undeclared one summed; a shard
 * that did not answer leaves a hash collection's count incomplete, never a replicated one's.
 */

import { describe, expect, it } from 'vitest';
import { countCollections } from './collection-counts.js';
import type { ClusterConfig } from './config.js';

const config: ClusterConfig = {
  version: 1,
  router: { port: 6000 },
  shards: ['s1', 's2', 's3', 's4'].map((name, k) => ({
    name,
    endpoint: `http://127.0.0.1:${5001 + k}`,
  })),
  collections: {
    orders: { strategy: 'hash', path: 'pnr' },
    airports: { strategy: 'replicated' },
  },
};

describe('countCollections', () => {
  it('sums a hash collection and counts a replicated one once', () => {
    const shard = (orders: number) => [
      { name: 'orders', count: orders },
      { name: 'airports', count: 2 },
    ];
    expect(countCollections(config, [shard(1), shard(2), shard(3), shard(4)])).toEqual([
      { name: 'airports', count: 2, complete: true },
      { name: 'orders', count: 10, complete: true },
    ]);
  });

  it('sums a collection cluster.json does not declare, and sorts by name', () => {
    const counts = countCollections(config, [
      [{ name: 'zebra', count: 1 }],
      [{ name: 'zebra', count: 2 }],
      [{ name: 'apes', count: 5 }],
      [],
    ]);
    expect(counts).toEqual([
      { name: 'apes', count: 5, complete: true },
      { name: 'zebra', count: 3, complete: true },
    ]);
  });

  it('marks a hash count incomplete while a shard is down; a replicated copy is whole', () => {
    const counts = countCollections(config, [
      null,
      [
        { name: 'orders', count: 4 },
        { name: 'airports', count: 2 },
      ],
      [{ name: 'airports', count: 2 }],
      null,
    ]);
    expect(counts).toEqual([
      { name: 'airports', count: 2, complete: true },
      { name: 'orders', count: 4, complete: false },
    ]);
  });
});
