/**
 * Damage found while reading the data file, as one coded error: ERR_STORAGE_CORRUPT naming
 * the file, the collection and (when known) the document's `_id`, with the engine's or the
 * decoder's own words kept as its cause for the log. The Store wraps its reads here, at the
 * boundary of the storage layer, so no raw engine message reaches a caller. Never repairs.
 */

import { DbError, dbError, isDbError } from '../errors/index.js';
import { formatId } from '../util/index.js';
import { isEngineDamage } from './lmdb-env.js';

/** Where a read met damage: what the message can name. */
export interface DamageSite {
  file: string;
  /** The collection read, when the read was of one. */
  collection?: string;
  /** The index read, when the read was of one. */
  index?: string;
  /** The document, when its id is known. */
  id?: Buffer;
  /** What else was read: "the catalog", "the change log". */
  part?: string;
}

/** What a damaged read was of, in words: "document 0193… of collection 'orders'". */
function describe(site: DamageSite): string {
  if (site.collection === undefined) return site.part ?? 'a page';
  const collection = `collection '${site.collection}'`;
  if (site.index !== undefined) return `index '${site.index}' of ${collection}`;
  if (site.id !== undefined) return `document ${formatId(site.id)} of ${collection}`;
  return `a document of ${collection}`;
}

/** The coded error for damage at `site`; `cause` is what the engine or decoder said. */
export function damaged(site: DamageSite, cause: unknown): DbError {
  const details: Record<string, unknown> = { file: site.file };
  if (site.collection !== undefined) details.collection = site.collection;
  if (site.index !== undefined) details.index = site.index;
  if (site.id !== undefined) details.id = formatId(site.id);
  const error = dbError(
    'ERR_STORAGE_CORRUPT',
    'unreadable',
    { file: site.file, what: describe(site) },
    details,
  );
  // The decoder's own error is the interesting cause, not the codec's wrapper of it.
  error.cause = cause instanceof DbError ? (cause.cause ?? cause) : cause;
  return error;
}

/**
 * True when `error` means the file is damaged: a record that does not decode (the codec's
 * ERR_STORAGE_CORRUPT without a site yet) or LMDB reporting broken pages.
 */
export function isDamage(error: unknown): boolean {
  if (isDbError(error)) return error.code === 'ERR_STORAGE_CORRUPT' && error.details === undefined;
  return isEngineDamage(error);
}

/** `error` as damage at `site` when it is damage (see isDamage); any other error as it is. */
export function asDamage(error: unknown, site: DamageSite): unknown {
  return isDamage(error) ? damaged(site, error) : error;
}

/** Runs one read; damage it meets is reported at `site`. */
export function guardRead<T>(site: DamageSite, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw asDamage(error, site);
  }
}

/**
 * `error` as damage met reading the record after `last` (the first when undefined), reported
 * at `site` with that record's id when `nextId` can still find it; any other error as it is.
 */
export function damageAfter(
  site: DamageSite,
  error: unknown,
  last: Buffer | undefined,
  nextId: (after: Buffer | undefined) => Buffer | undefined,
): unknown {
  if (!isDamage(error)) return error;
  let id: Buffer | undefined;
  try {
    id = nextId(last);
  } catch {
    // The pages that would name it are damaged too: the collection is still named.
  }
  return damaged({ ...site, id }, error);
}

/**
 * Yields what `items` yields; damage met while stepping is reported at `site`, with the id
 * of the record after the last one yielded when `nextId` can still find it (the record that
 * failed to decode).
 */
export function* guardScan<T extends { id: Buffer }>(
  site: DamageSite,
  items: Iterable<T>,
  nextId: (after: Buffer | undefined) => Buffer | undefined,
): Generator<T> {
  let last: Buffer | undefined;
  const iterator = items[Symbol.iterator]();
  try {
    for (;;) {
      let step: IteratorResult<T>;
      try {
        step = iterator.next();
      } catch (error) {
        throw damageAfter(site, error, last, nextId);
      }
      if (step.done) return;
      last = Buffer.from(step.value.id);
      yield step.value;
    }
  } finally {
    iterator.return?.();
  }
}

/**
 * Yields what `items` yields; damage met while stepping is reported at `site()`, made only
 * then (an index's site walks the catalog), and no closure is made per step: index reads
 * pass every id of a query through here (issue 25).
 */
export function* guardItems<T>(site: () => DamageSite, items: Iterable<T>): Generator<T> {
  const iterator = items[Symbol.iterator]();
  try {
    for (;;) {
      let step: IteratorResult<T>;
      try {
        step = iterator.next();
      } catch (error) {
        throw asDamage(error, site());
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    iterator.return?.();
  }
}
