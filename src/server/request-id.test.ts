/** Proves generated request ids are UUID-shaped, distinct, and differ between generators. */

import { describe, expect, it } from 'vitest';
import { REQUEST_IDS_PER_PREFIX, requestIdGenerator } from './request-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdGenerator', () => {
  it('makes distinct version-4-shaped UUIDs', () => {
    const next = requestIdGenerator();
    const ids = Array.from({ length: 1000 }, () => next());
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('wraps its counter after the last of REQUEST_IDS_PER_PREFIX ids', () => {
    const next = requestIdGenerator(REQUEST_IDS_PER_PREFIX - 1);
    const last = next();
    const wrapped = next();
    expect(last).toMatch(/-ffffffffffff$/);
    expect(wrapped).toMatch(/-000000000000$/);
    expect(wrapped.slice(0, 24)).toBe(last.slice(0, 24));
    expect(next()).toMatch(UUID);
  });

  it('gives two generators different prefixes', () => {
    const a = requestIdGenerator()();
    const b = requestIdGenerator()();
    expect(a.slice(0, 24)).not.toBe(b.slice(0, 24));
  });
});
