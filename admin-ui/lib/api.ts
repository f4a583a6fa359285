/**
 * The UI's one way to the node: plain fetch, typed by the few response shapes the screens
 * read (declared here rather than imported from the root, so the Next build stays
 * self-contained). The API key lives in sessionStorage only, never in the bundle, and goes
 * out as `Authorization: Bearer`. Every failure becomes an ApiError whose message is the
 * node's own (what is wrong and what to do), or says the node could not be reached.
 */

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

/** A failed call: the HTTP status (0 when the node did not answer), the node's code and text. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  get unreachable(): boolean {
    return this.status === 0;
  }
}

export interface Health {
  status: string;
  node: string;
  version: string;
  readOnly: boolean;
  role: 'none' | 'leader' | 'follower' | 'router';
  uptimeSeconds: number;
  /** Only a router answers it: how many shards it fronts. */
  shards?: number;
}

export interface IndexInfo {
  name: string;
  paths: string[];
  unique: boolean;
  multikey: boolean;
  state: 'ready' | 'stale';
  entries?: number;
}

export interface CollectionStats {
  name: string;
  count: number;
  indexes?: IndexInfo[];
}

export interface NodeStats {
  file?: string;
  fileSizeBytes?: number;
  pageSizeBytes?: number;
  pages?: { total: number; used: number; free: number };
  collections: CollectionStats[];
  changeLog?: { entries: number; lastSeq: number; firstSeq: number };
  term?: number;
  /** Only a router answers it: each shard's own stats. */
  shards?: Array<{ name: string; stats: NodeStats }>;
}

export type Doc = Record<string, unknown> & { _id?: string };

export interface DocumentPage {
  documents: Doc[];
  count: number;
  plan?: string;
}

export interface QueryResult {
  plan: string;
  count: number;
  executionMs: number;
  documents: Doc[];
  affected?: number;
  ids?: string[];
}

export interface BulkResult {
  ids: string[];
  errors: Array<{ index: number; error: string; code: string }>;
  error?: string;
  code?: string;
}

export interface FollowerStatus {
  name: string;
  address: string;
  state: string;
  sentSeq: number;
  acknowledgedSeq: number;
  lagEntries: number;
  lagSeconds: number;
}

export interface ReplicationStatus {
  role: 'none' | 'leader' | 'follower';
  readOnly: boolean;
  term: number;
  lastSeq: number;
  seqFloor: number;
  fenced: { term: number; by: string; at: string } | null;
  replicationPort: number | null;
  syncFollowers: number;
  followerCount: number;
  followers: FollowerStatus[];
  leader: {
    leader: string;
    leaderName: string | null;
    connected: boolean;
    state: string;
    appliedSeq: number;
    leaderSeq: number | null;
    lagEntries: number | null;
    lastError: string | null;
  } | null;
  autoFailover: {
    enabled: boolean;
    silenceSeconds: number | null;
    newLeaderPort: number | null;
    state: string;
    lastLeaderContactAt: string | null;
  };
}

interface CallOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Answer the raw text instead of parsing JSON (GET /metrics). */
  text?: boolean;
  /** Use this key instead of the stored one (the sign-in check). */
  key?: string;
}

/** One call. Rejects with an ApiError; resolves with the parsed body. */
export async function call<T>(path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key ?? storedKey();
  if (key) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  let response: Response;
  try {
    response = await fetch(`${BASE_URL}${path}`, {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      ...(body !== undefined && { body }),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(
      0,
      'UNREACHABLE',
      `the node at ${BASE_URL || window.location.origin} did not answer: is it running?`,
    );
  }
  const text = await response.text();
  if (!response.ok) throw errorOf(response.status, text);
  if (options.text) return text as T;
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

function errorOf(status: number, text: string): ApiError {
  try {
    const { error, code, ...details } = JSON.parse(text) as Record<string, unknown>;
    if (typeof error === 'string') {
      return new ApiError(status, String(code ?? 'ERR_UNKNOWN'), error, details);
    }
  } catch {
    // Not docdb's error body: a proxy in between, or another server on the port.
  }
  return new ApiError(status, 'ERR_UNKNOWN', `HTTP ${status}: ${text.slice(0, 200)}`);
}

const seg = encodeURIComponent;

/** The calls the screens make, one per route they use. */
export const api = {
  health: (key?: string) => call<Health>('/health', key === undefined ? {} : { key }),
  /** /stats needs the key even where /health does not: the sign-in check. */
  stats: (key?: string) => call<NodeStats>('/stats', key === undefined ? {} : { key }),
  metrics: () => call<string>('/metrics', { text: true }),
  collections: () => call<string[]>('/collections'),
  list: (collection: string, limit: number, after?: string) =>
    call<DocumentPage>(
      `/collections/${seg(collection)}?limit=${limit}${after ? `&after=${seg(after)}` : ''}`,
    ),
  byKey: (collection: string, field: string, value: string) =>
    call<DocumentPage>(`/collections/${seg(collection)}/by/${seg(field)}/${seg(value)}`),
  insert: (collection: string, doc: unknown) =>
    call<{ id: string }>(`/collections/${seg(collection)}`, { body: doc }),
  replace: (collection: string, id: string, doc: unknown) =>
    call<{ id: string }>(`/collections/${seg(collection)}/${seg(id)}`, {
      method: 'PUT',
      body: doc,
    }),
  remove: (collection: string, id: string) =>
    call<{ deleted: number }>(`/collections/${seg(collection)}/${seg(id)}`, { method: 'DELETE' }),
  drop: (collection: string) =>
    call<{ dropped: string }>(`/collections/${seg(collection)}`, {
      method: 'DELETE',
      headers: { 'x-confirm': 'true' },
    }),
  bulk: (collection: string, docs: unknown[], atomic: boolean) =>
    call<BulkResult>(`/collections/${seg(collection)}/bulk${atomic ? '?atomic=true' : ''}`, {
      body: docs,
    }),
  query: (sql: string, params: unknown[]) => call<QueryResult>('/query', { body: { sql, params } }),
  indexes: (collection: string) => call<IndexInfo[]>(`/indexes/${seg(collection)}`),
  createIndex: (request: {
    collection: string;
    paths: string[];
    name?: string;
    unique?: boolean;
  }) => call<IndexInfo>('/index', { body: request }),
  rebuildIndex: (collection: string, name: string) =>
    call<unknown>(`/admin/rebuild-index/${seg(collection)}/${seg(name)}`, { body: {} }),
  replication: () => call<ReplicationStatus>('/replication/status'),
  replicationAction: (action: string, body: unknown = {}) =>
    call<ReplicationStatus>(`/replication/${action}`, { body }),
};
