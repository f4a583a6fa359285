/**
 * Resolves the paths of a statement against its collections: FROM alone, or FROM and the
 * JOINed ones, whose paths start with the collection name. Pure.
 */

import { dbError } from '../../errors/index.js';
import { type JsonPath, parsePath } from '../../util/index.js';
import type { PathRef } from '../ast/index.js';

/** A path resolved to the collection it reads (joins prefix paths with collection names). */
export interface ResolvedPath {
  text: string;
  /** Index into the plan's sources: 0 is FROM, 1… the JOINs in order. */
  source: number;
  /** The path inside that collection's documents. */
  path: JsonPath;
}

/**
 * Resolves statement paths against the FROM collection and the JOINed ones. `[*]` steps are
 * accepted: the parser keeps them out of SQL text, and the finds of the embedded API carry them.
 */
export class PathResolver {
  private readonly cache = new Map<string, ResolvedPath>();

  /** `sources` are canonical collection names: FROM first, then each JOIN. */
  constructor(readonly sources: readonly string[]) {}

  get joined(): boolean {
    return this.sources.length > 1;
  }

  resolve(ref: PathRef): ResolvedPath {
    let resolved = this.cache.get(ref.text);
    if (resolved) return resolved;
    resolved = this.joined
      ? this.resolveJoined(ref)
      : { text: ref.text, source: 0, path: parsePath(ref.text, { allowEach: true }) };
    this.cache.set(ref.text, resolved);
    return resolved;
  }

  private resolveJoined(ref: PathRef): ResolvedPath {
    const lower = ref.text.toLowerCase();
    // Longest collection name first, so `a.b` wins over `a` for `a.b.x`.
    const order = this.sources
      .map((name, source) => ({ name, source }))
      .sort((x, y) => y.name.length - x.name.length);
    for (const { name, source } of order) {
      if (lower.startsWith(`${name}.`) || lower.startsWith(`${name}[`)) {
        const rest = ref.text.slice(name.length).replace(/^\./, '');
        if (rest.length > 0) {
          return { text: ref.text, source, path: parsePath(rest, { allowEach: true }) };
        }
      }
    }
    throw dbError(
      'ERR_SQL_INVALID',
      'pathSource',
      {
        path: ref.text,
        line: ref.at.line,
        column: ref.at.column,
        sources: this.sources.join(', '),
      },
      { line: ref.at.line, column: ref.at.column },
    );
  }
}

/** True when a resolved path starts at `_id`. */
export function readsId(resolved: ResolvedPath): boolean {
  const first = resolved.path.segments[0];
  return first?.kind === 'field' && first.name === '_id';
}
