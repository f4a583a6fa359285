/** Assertions are bugs, not handled errors: never a DbError, so never a code a caller acts on. */

import { describe, expect, it } from 'vitest';
import { AssertionFailure, assert } from './assert.js';
import { isDbError } from './db-error.js';

describe('assert', () => {
  it('passes when the condition holds and throws an AssertionFailure, not a DbError, when not', () => {
    expect(() => assert(1 + 1 === 2, 'arithmetic')).not.toThrow();
    let caught: unknown;
    try {
      assert([].length > 0, 'a list that cannot be empty');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AssertionFailure);
    expect(isDbError(caught)).toBe(false);
    expect((caught as Error).message).toBe('assertion failed: a list that cannot be empty');
  });
});
