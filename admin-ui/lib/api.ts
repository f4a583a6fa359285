/**
 * The UI's one way to the node: `docdb/client` (its browser build, over the page's fetch; ADR
 * 0024), whose answer types are the node's own, so none is declared here again. This module
 * only says where the node is and which key to send: the API key lives in sessionStorage
 * only, never in the bundle. Failures are the client's DbErrors, with the node's message.
 */

import {
  connect,
  type DocdbClient,
  type Document,
  isDbError,
  type RouterStats,
  type StoreStats,
} from 'docdb/client';

/**
 * The node's base address: empty for the same origin (served at /ui/ by the node or the
 * router), or the build-time NEXT_PUBLIC_DOCDB_URL (that node then needs --cors-origin).
 */
export const BASE_URL = (process.env.NEXT_PUBLIC_DOCDB_URL ?? '').replace(/\/+$/, '');

const KEY_STORAGE = 'docdb.apiKey';

export function storedKey(): string {
  return typeof window === 'undefined' ? '' : (sessionStorage.getItem(KEY_STORAGE) ?? '');
}

export function storeKey(key: string): void {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

/** The address the client calls: NEXT_PUBLIC_DOCDB_URL, else the origin that served the page. */
export function nodeUrl(): string {
  return BASE_URL || window.location.origin;
}

let current: { key: string; client: DocdbClient } | undefined;

/**
 * The client of the node with `key` (default: the stored one). One client per key, so a
 * screen's calls share it; a new key (sign-in, sign-out) gets a new one.
 */
export function client(key: string = storedKey()): DocdbClient {
  if (current?.key !== key) {
    current = { key, client: connect(nodeUrl(), { apiKey: key || undefined }) };
  }
  return current.client;
}

/** True when the call failed because the node did not answer (as opposed to refusing it). */
export function unanswered(error: unknown): boolean {
  return isDbError(error, 'ERR_CLIENT_UNREACHABLE') || isDbError(error, 'ERR_CLIENT_TIMEOUT');
}

/** A stored document's `_id` (the node gives every one), or undefined for none. */
export function idOf(doc: Document | undefined): string | undefined {
  return typeof doc?._id === 'string' ? doc._id : undefined;
}

/** `GET /stats` from a node or a router: the client types a node's; a router answers its own. */
export type Stats = StoreStats | RouterStats;

/** `GET /stats` of the node or router that serves the UI. */
export function stats(key?: string): Promise<Stats> {
  return client(key).stats() as Promise<Stats>;
}

/** A node's stats (file, pages, change log), or undefined for a router's or none. */
export function nodeStats(stats: Stats | undefined): StoreStats | undefined {
  return stats && !('shards' in stats) ? stats : undefined;
}

/** A router's stats (each shard's own), or undefined for a node's or none. */
export function routerStats(stats: Stats | undefined): RouterStats | undefined {
  return stats && 'shards' in stats ? stats : undefined;
}
