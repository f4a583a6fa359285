/**
 * Which index reads prove WHERE (so documents skip its recheck): exactly the comparisons the
 * index answered, on its one path, with values whose keys decide as SQL does; anything more
 * or different is rechecked.
 */

import { describe, expect, it } from 'vitest';
import { parse } from '../parser/index.js';
import { accessOf, type CollectionView, type IndexView, planSelect } from '../planner/index.js';
import { indexProves } from './proven.js';

const index = (name: string, paths: string[], more: Partial<IndexView> = {}): IndexView => ({
  name,
  paths,
  unique: false,
  multikey: false,
  state: 'ready',
  ...more,
});

const VIEWS: CollectionView[] = [
  {
    name: 'o',
    indexes: [
      index('pnr', ['pnr'], { unique: true }),
      index('total', ['fare.total']),
      index('legs', ['legs[*].to'], { multikey: true }),
      index('pair', ['a', 'b']),
    ],
  },
  { name: 'p', indexes: [] },
];

function proves(where: string, params: unknown[], from = 'o'): boolean {
  const { statement } = parse(`SELECT ${from === 'o' ? 'n' : 'o.n'} FROM ${from} WHERE ${where}`);
  if (statement.kind !== 'select' || !statement.where) throw new Error('a SELECT with WHERE');
  const plan = planSelect(statement, from === 'o' ? VIEWS.slice(0, 1) : VIEWS);
  return indexProves(accessOf(plan.root), statement.where, plan.resolver, params);
}

describe('indexProves', () => {
  it('holds for one equality or the number bounds the index read', () => {
    expect(proves('pnr = ?', ['ABC'])).toBe(true);
    expect(proves("'ABC' = pnr", [])).toBe(true);
    expect(proves('pnr = ?', [7])).toBe(true);
    expect(proves('pnr = ?', [false])).toBe(true);
    expect(proves('fare.total >= ? AND fare.total < ?', [1, 2])).toBe(true);
    expect(proves('? < fare.total', [1])).toBe(true);
    expect(proves('o.fare.total > ?', [1], 'o JOIN p ON o.x = p.x')).toBe(true);
  });

  it('fails for anything the key cannot decide or the index did not read', () => {
    expect(proves('pnr = ?', ['x'.repeat(200)])).toBe(false);
    expect(proves('pnr = ?', ['a\ufffd'])).toBe(true);
    expect(proves('pnr = ?', ['a\ud800'])).toBe(false);
    expect(proves('pnr = ? AND status = ?', ['a', 'b'])).toBe(false);
    expect(proves('pnr = ? OR pnr = ?', ['a', 'b'])).toBe(false);
    expect(proves('fare.total >= ? AND fare.total < ?', ['a', 'b'])).toBe(false);
    expect(proves('fare.total >= ? AND fare.total >= ?', [1, 2])).toBe(false);
    expect(proves('fare.total > ? AND status = ?', [1, 'x'])).toBe(false);
    expect(proves('legs[0].to = ?', ['CDG'])).toBe(false);
    expect(proves('a = ? AND b = ?', [1, 2])).toBe(false);
    expect(proves('status = ?', ['x'])).toBe(false);
    expect(proves('o.fare.total > ? AND p.y = 1', [1], 'o JOIN p ON o.x = p.x')).toBe(false);
  });
});
