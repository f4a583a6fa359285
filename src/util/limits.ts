/**
 * Every limit docdb enforces, as named constants in one place. Each is tested at the limit
 * and one past it. Changing one is an interface change: update docs/limits.md with it.
 */

const MiB = 1024 * 1024;

/** Largest stored document, measured on its stored (MessagePack) encoding. */
export const DOCUMENT_BYTES_MAX = 16 * MiB;
/** Deepest nesting of objects and arrays inside one document (MongoDB uses the same bound). */
export const DOCUMENT_DEPTH_MAX = 100;
/** Longest collection name, in characters. */
export const COLLECTION_NAME_CHARS_MAX = 128;
/** Most collections in one data file; with the index limit it bounds LMDB's sub-databases. */
export const COLLECTIONS_MAX = 256;
/**
 * Most shared document structures per file (later shapes are written with inline ones): the
 * storage codec's bound, and the most a leader may tell its followers (replication protocol).
 */
export const SHARED_STRUCTURES_MAX = 1024;
/** Most indexes on one collection. */
export const INDEXES_PER_COLLECTION_MAX = 16;
/** Most paths in one composite index. */
export const INDEX_PATHS_MAX = 8;
/** Longest index name, in characters. */
export const INDEX_NAME_CHARS_MAX = 128;
/** Longest JSON path, in characters. */
export const PATH_CHARS_MAX = 512;
/** Most segments (`a`, `.b`, `[0]`, `[*]`) in one JSON path. */
export const PATH_SEGMENTS_MAX = 32;
/** Most documents in one bulk insert. */
export const BULK_DOCUMENTS_MAX = 100_000;
/** Documents a list returns when no limit is given. */
export const LIST_LIMIT_DEFAULT = 100;
/** Largest limit a list accepts. */
export const LIST_LIMIT_MAX = 10_000;
/** Largest HTTP request body the server reads. */
export const BODY_BYTES_MAX = 32 * MiB;
/** Longest path segment of a URL (a collection name, an `_id`, a by-key field or value). */
export const PATH_PARAM_CHARS_MAX = 8192;
/** Longest SQL text accepted, in characters. */
export const SQL_CHARS_MAX = 1024 * 1024;
/** Deepest nesting of parentheses and NOT in one SQL condition. */
export const SQL_NESTING_MAX = 256;
/** Parsed statements kept in the cache, keyed by SQL text. */
export const STATEMENT_CACHE_ENTRIES = 1000;
/**
 * Longest SQL text the statement cache keeps; a longer one is parsed on each call. A parse
 * holds up to ~80 bytes per character (an IN list of `?`), so 1,000 cached 1 MiB texts
 * filled the heap and ended the process; texts this short are the ones worth keeping.
 */
export const STATEMENT_CACHED_CHARS_MAX = 4096;
/** Longest SQL text that may be prepared (held by handle), for the same reason. */
export const PREPARED_SQL_CHARS_MAX = 8192;
/**
 * Prepared statements a node (or a router) holds by handle; past it the least recently used
 * goes, and its handle answers ERR_SQL_HANDLE_UNKNOWN until prepared again (the client does so
 * by itself).
 */
export const PREPARED_STATEMENTS_MAX = 1000;
/**
 * Share of V8's old-generation limit that may be live (after a full collection) while a SELECT
 * reads or holds rows; past it the statement is stopped with ERR_QUERY_MEMORY instead of
 * letting the process run out of heap (sql/executor/budget.ts).
 */
export const QUERY_HEAP_LIVE_FRACTION_MAX = 0.8;
/**
 * Documents the warning for a double-quoted path (a field name, not a string) looks through
 * for one that has the field, in `_id` order; past them it warns naming how many it read.
 */
export const QUOTED_FIELD_SCAN_DOCUMENTS_MAX = 10_000;
/**
 * Change feeds (GET /changes) a node or a router serves at once; past it a feed is refused
 * with ERR_CHANGE_FEEDS_FULL (503). Every commit wakes each open feed.
 */
export const CHANGE_FEEDS_MAX = 1024;
/** Change-log entries kept behind the newest one when a checkpoint trims the log. */
export const CHANGE_LOG_RETAIN_ENTRIES = 1_000_000;
/**
 * Bytes the change log may hold before its oldest entries are removed, at write time. A
 * follower that falls further behind than this catches up from a snapshot (DESIGN §6).
 */
export const CHANGE_LOG_RETAIN_BYTES = 256 * MiB;
/**
 * Bytes the write-ahead log takes after a checkpoint before the next begins: an open after a
 * crash applies at most about this much again (a few seconds; docs/reliability.md).
 */
export const CHECKPOINT_BYTES = 64 * MiB;
/** The least `checkpointBytes` may be set to. */
export const CHECKPOINT_BYTES_MIN = 1 * MiB;
/**
 * How far past its byte bound the change log may grow to keep the entries a follower still
 * needs: beyond CHANGE_LOG_RETAIN_BYTES times this, the oldest held entries go anyway and
 * that follower catches up from a snapshot (as PostgreSQL's max_slot_wal_keep_size does).
 */
export const CHANGE_LOG_HOLD_FACTOR = 4;
/**
 * Runs a node's term history keeps (one per term its entries carry, so one per promotion it
 * lived through); past it the oldest go, and a rejoin from before them is refused as one
 * whose fork cannot be placed.
 */
export const TERM_RUNS_MAX = 1000;
/**
 * Smallest size cap a data file may be given (`maxFileBytes`, a node's `storage.maxFileMiB`):
 * below it an empty file with its catalog and change log would already be past the cap.
 */
export const DATA_FILE_CAP_BYTES_MIN = MiB;

/**
 * Seconds a connection may go with no byte moving either way before the node closes it, when
 * it has no request (an idle keep-alive connection) or its client stopped reading the answer
 * (which would otherwise hold a read snapshot open). A request being worked on is not cut.
 */
export const HTTP_IDLE_TIMEOUT_SECONDS_DEFAULT = 60;
/** Seconds a client has to send complete request headers (slow-loris clients are closed). */
export const HTTP_HEADER_TIMEOUT_SECONDS_DEFAULT = 10;
/** Seconds a client has to send a whole request, headers and body. */
export const HTTP_REQUEST_TIMEOUT_SECONDS_DEFAULT = 60;
/**
 * Seconds a SELECT may run on a node before it is stopped with ERR_QUERY_TIMEOUT: a statement
 * holds its process's event loop while it reads, so one longer than this would stall every
 * other request of the process (and, on a leader, its followers' heartbeats).
 */
export const QUERY_TIMEOUT_SECONDS_DEFAULT = 30;
/** How often the server looks for connections past their header or request timeout. */
export const HTTP_TIMEOUT_CHECK_MS = 1_000;

/**
 * Documents whose scanned paths the writer keeps in memory, over all cached selections
 * (scans.ts, `scanSelected`). A selection of a larger collection is scanned from disk.
 */
export const SELECTION_CACHE_DOCS_MAX = 2_000_000;

/**
 * Bytes the kept selections may hold, by estimate (each value's size, strings by length):
 * counted in documents alone, selections of 1 MiB strings filled the heap.
 */
export const SELECTION_CACHE_BYTES_MAX = 512 * 1024 * 1024;

/** Selections kept at once: every commit brings each one of its collection up to date. */
export const SELECTIONS_KEPT_MAX = 32;

/**
 * A kept selection no scan has read for this long is dropped at the next commit to its
 * collection: a report that stopped running should not keep its memory, nor cost each write
 * the decoding that keeps it up to date.
 */
export const SELECTION_CACHE_IDLE_MS = 10 * 60_000;

/**
 * Largest replication frame. An entries frame is filled up to REPLICATION_BATCH_BYTES; one
 * entry can be larger (a bulk insert of the largest body), so the bound leaves room for it.
 */
export const REPLICATION_FRAME_BYTES_MAX = 64 * MiB;
/** Bytes of entries a leader puts in one frame before sending it. */
export const REPLICATION_BATCH_BYTES = 1 * MiB;
/** Documents a leader puts in one frame of a snapshot. */
export const REPLICATION_SNAPSHOT_BATCH_DOCS = 1000;
/** Followers one leader serves at once; more are refused with a reason. */
export const REPLICATION_FOLLOWERS_MAX = 32;

/**
 * Most processes one node serves from (`--serve-processes`, issue 25): each holds the data
 * file's map and a Fastify app, and more than the cores only adds switching.
 */
export const SERVE_PROCESSES_MAX = 64;

/** Longest shard name in cluster.json, in characters (names are `[A-Za-z0-9._-]`). */
export const SHARD_NAME_CHARS_MAX = 64;
/** Most shards one cluster.json describes. */
export const CLUSTER_SHARDS_MAX = 256;
/** Largest cluster.json docdb reads; a topology file is a few KiB. */
export const CLUSTER_CONFIG_BYTES_MAX = 1024 * 1024;
/** The router's port in a new cluster.json (spec §1: `router.port`). */
export const ROUTER_PORT_DEFAULT = 6000;
/** How long `docdb health` waits for each shard by default. */
export const HEALTH_TIMEOUT_MS_DEFAULT = 5000;

/** A leader lease's TTL unless configured: the leader stops within TTL − margin of losing etcd. */
export const LEASE_TTL_SECONDS_DEFAULT = 10;
/** The shortest TTL: etcd raises shorter ones to 1.5 × its election timeout (1 s by default). */
export const LEASE_TTL_SECONDS_MIN = 2;
/** The longest TTL: a dead leader's shard stays without one for up to this long. */
export const LEASE_TTL_SECONDS_MAX = 300;

/** Problems `docdb verify` lists one by one; it counts every one (a damaged file may have millions). */
export const VERIFY_PROBLEMS_LISTED_MAX = 100;

/** The lowest port a node, a router or a replication listener binds (0 means "pick one"). */
export const PORT_MIN = 1;
/** The highest TCP port. */
export const PORT_MAX = 65_535;
/** How every port check words the range. */
export const PORT_RANGE_TEXT = `an integer from ${PORT_MIN} to ${PORT_MAX}`;

/** True for a port number: an integer from PORT_MIN (or 0 when `zero` picks a free one) to PORT_MAX. */
export function isPort(value: unknown, options: { zero?: boolean } = {}): value is number {
  const min = options.zero ? 0 : PORT_MIN;
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= PORT_MAX;
}

/**
 * The size an NDJSON answer is written in: rows are gathered into chunks of at least this
 * many bytes (the last may be shorter) before one stream write, which costs more than
 * writing a row's text; backpressure holds between chunks.
 */
export const NDJSON_CHUNK_BYTES = 64 * 1024;
