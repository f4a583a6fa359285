/**
 * Assertions, apart from handled errors (TigerBeetle's split): a DbError is what bad input or
 * a refused request gets, with a code its caller can act on; a failed assertion is a bug in
 * docdb. It throws a plain `AssertionFailure`, never a DbError, so the server answers it as
 * 500 ERR_INTERNAL with the text withheld and the cause in its log, and the CLI as an
 * unexpected error.
 */

/** An invariant of docdb's own code that did not hold. */
export class AssertionFailure extends Error {
  override name = 'AssertionFailure';
}

/** Throws an AssertionFailure saying `message` unless `condition` holds. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionFailure(`assertion failed: ${message}`);
}
