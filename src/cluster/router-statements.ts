/**
 * A router's parsed statements: by text (so a repeated `query` costs a lookup, not a parse)
 * and by prepared handle. A parse does not depend on the topology, so a router made for a
 * changed cluster.json takes over its predecessor's (reload.ts), and a handle a client
 * prepared stays valid across the reload. It parses; it never routes or runs.
 */

import { type Parsed, PreparedStatements, parse } from '../sql/parser/index.js';
import { ClockCache, STATEMENT_CACHE_ENTRIES, STATEMENT_CACHED_CHARS_MAX } from '../util/index.js';

export class RouterStatements {
  /** The statements prepared here, by handle: the router's own, whatever the shards hold. */
  readonly prepared = new PreparedStatements<Parsed>();
  private readonly texts = new ClockCache<Parsed>(STATEMENT_CACHE_ENTRIES);

  /** The parse of `sql`, from the cache when it was parsed before (a failed parse is not kept). */
  parsedOf(sql: string): Parsed {
    if (sql.length > STATEMENT_CACHED_CHARS_MAX) return parse(sql);
    let parsed = this.texts.get(sql);
    if (parsed === undefined) {
      parsed = parse(sql);
      this.texts.set(sql, parsed);
    }
    return parsed;
  }
}
