/**
 * The parser fuzz generator shared by test/sql/parser-fuzz.test.ts (a few thousand inputs in
 * `npm test`) and bench/fuzz-parser.ts (100,000 and more): seeded, so every input can be
 * regenerated from its seed and number. It mixes tokens of the dialect's vocabulary, random
 * characters, random and truncated or mutated valid statements, nesting, huge numbers and
 * unterminated strings, identifiers and JSON. It also owns the verdict on one parse: a
 * statement, a typed SQL error, or a finding. Pure; no storage.
 */

import { isDbError } from '../../src/index.js';
import { parse, SQL_KEYWORDS } from '../../src/sql/index.js';
import { Rng } from '../../src/util/index.js';

export { Rng };

/** The parser's keywords, the aggregate names, and a few in other letter cases. */
const KEYWORDS = [
  ...SQL_KEYWORDS,
  'COUNT',
  'SUM',
  'AVG',
  'MIN',
  'MAX',
  'select',
  'from',
  'where',
  'Null',
];

const IDENTIFIERS = [
  'a',
  'b',
  'orders',
  'eu.west.orders',
  'eu-west',
  'passengers[0].lastName',
  'tags[*]',
  'tags[1]',
  'a.b.c',
  'a[0][1]',
  '_id',
  'x$y',
  'fare.total',
  '"select"',
  '"a""b"',
  '"order".by',
  'a.',
  '.a',
  'a..b',
  'a[',
  'a[]',
  'a[-1]',
  'a[01]',
  'a[x]',
  'a[9999999999]',
  'ÿ',
  'a b',
];

const OPERATORS = ['=', '!=', '<>', '<', '<=', '>', '>=', '!', '==', '=>', '=<'];
const PUNCTUATION = ['(', ')', ',', ';', '*', '?', '.', '[', ']', '{', '}', '--', '-'];

const LITERALS = [
  '0',
  '1',
  '-1',
  '30',
  '1.5',
  '-0',
  '1e3',
  '1E-7',
  '2.',
  '.5',
  '01',
  '1e',
  '1e+',
  '0x1F',
  '12abc',
  '1'.padEnd(400, '0'),
  '1e999',
  '-1e-999',
  '9007199254740993',
  "'a'",
  "''",
  "'it''s'",
  "'%a_'",
  "'unterminated",
  "'''",
  "'\n'",
  '"unterminated',
  '{"a":1}',
  '[1,2]',
  '[{"a":[1,{"b":null}]}]',
  '{"a":"}"}',
  '{"a":',
  '{',
  '[',
  '[1,2',
  '{"a":1}}',
  '{"a" 1}',
  '{"a":"\\"}',
  '[]',
  '{}',
  'true',
  'false',
  'null',
];

const WHITESPACE = [' ', ' ', ' ', '  ', '\n', '\t', '\r\n', '', ' -- comment\n'];

/** Characters for raw noise: ASCII, controls, the dialect's specials, and non-BMP text. */
const NOISE = [
  ...'abcXYZ019_.-$"\'`(){}[],;*?=<>!%#@&|^~+/\\:',
  '\u0000',
  '\u0007',
  '\u00a0',
  '\u2028',
  'é',
  'Ü',
  '中',
  '😀',
  '\ud800',
  '\udc00',
  '\uffff',
];

function token(rng: Rng): string {
  switch (rng.int(5)) {
    case 0:
      return rng.pick(KEYWORDS);
    case 1:
      return rng.pick(IDENTIFIERS);
    case 2:
      return rng.pick(OPERATORS);
    case 3:
      return rng.pick(PUNCTUATION);
    default:
      return rng.pick(LITERALS);
  }
}

function tokenSoup(rng: Rng): string {
  const count = 1 + rng.int(30);
  let out = '';
  for (let i = 0; i < count; i++) out += token(rng) + rng.pick(WHITESPACE);
  return out;
}

function noise(rng: Rng): string {
  const length = rng.int(60);
  let out = '';
  for (let i = 0; i < length; i++) {
    out += rng.chance(0.5) ? rng.pick(NOISE) : String.fromCharCode(rng.int(0x3000));
  }
  return out;
}

// ---- valid statements, from a small random grammar --------------------------------------

function path(rng: Rng): string {
  return rng.pick(['a', 'b', 'a.b', 'tags[0]', 'passengers[1].lastName', '"select"', '_id', 'n']);
}

function collection(rng: Rng): string {
  return rng.pick(['orders', 'eu.west.orders', 'eu-west', 'Orders', 'c_1']);
}

function value(rng: Rng): string {
  return rng.pick(['1', '-2.5', "'x'", "'it''s'", 'true', 'false', 'null', '?', '1e3']);
}

function condition(rng: Rng, depth: number): string {
  const leaf = depth <= 0 || rng.chance(0.4);
  if (leaf) {
    switch (rng.int(6)) {
      case 0:
        return `${path(rng)} ${rng.pick(['=', '!=', '<>', '<', '<=', '>', '>='])} ${value(rng)}`;
      case 1:
        return `${path(rng)} ${rng.pick(['', 'NOT '])}IN (${Array.from(
          { length: 1 + rng.int(4) },
          () => value(rng),
        ).join(', ')})`;
      case 2:
        return `${path(rng)} IS ${rng.pick(['', 'NOT '])}NULL`;
      case 3:
        return `${path(rng)} ${rng.pick(['', 'NOT '])}${rng.pick(['LIKE', 'ILIKE'])} '${rng.pick(['a%', '_b', '%'])}'`;
      case 4:
        return `${value(rng)} ${rng.pick(['=', '<'])} ${path(rng)}`;
      default:
        return `${path(rng)} = ${path(rng)}`;
    }
  }
  switch (rng.int(3)) {
    case 0:
      return `${condition(rng, depth - 1)} AND ${condition(rng, depth - 1)}`;
    case 1:
      return `${condition(rng, depth - 1)} OR ${condition(rng, depth - 1)}`;
    default:
      return `${rng.pick(['NOT ', ''])}(${condition(rng, depth - 1)})`;
  }
}

function selectItem(rng: Rng): string {
  const fn = rng.pick(['COUNT', 'SUM', 'AVG', 'MIN', 'MAX']);
  const item = rng.chance(0.3)
    ? `${fn}(${fn === 'COUNT' && rng.chance(0.5) ? '*' : path(rng)})`
    : path(rng);
  return rng.chance(0.2) ? `${item} AS ${rng.pick(['x', '"from"', "'a b'"])}` : item;
}

function select(rng: Rng): string {
  let sql = `SELECT ${rng.chance(0.2) ? 'DISTINCT ' : ''}`;
  sql += rng.chance(0.4)
    ? '*'
    : Array.from({ length: 1 + rng.int(3) }, () => selectItem(rng)).join(', ');
  sql += ` FROM ${collection(rng)}`;
  if (rng.chance(0.2)) sql += ` ${rng.pick(['', 'INNER '])}JOIN c2 ON ${'orders.a'} = c2.b`;
  if (rng.chance(0.6)) sql += ` WHERE ${condition(rng, 3)}`;
  if (rng.chance(0.2)) sql += ` GROUP BY ${path(rng)}`;
  if (rng.chance(0.3)) sql += ` ORDER BY ${path(rng)}${rng.pick(['', ' ASC', ' DESC'])}`;
  if (rng.chance(0.3)) sql += ` LIMIT ${rng.pick(['0', '10', '?'])}`;
  if (rng.chance(0.2)) sql += ` OFFSET ${rng.pick(['0', '5', '?'])}`;
  return sql;
}

/** A random statement of the dialect (not always meaningful, usually parseable). */
export function validStatement(rng: Rng): string {
  switch (rng.int(7)) {
    case 0:
      return `INSERT INTO ${collection(rng)} VALUES ${rng.pick(['{"a":1}', '[{"a":1},{"b":[2]}]', '?', '{"a":1}, {"b":"}"}'])}`;
    case 1:
      return `UPDATE ${collection(rng)} SET ${path(rng)} = ${rng.pick([value(rng), '{"k":[1]}', '[]'])}${rng.chance(0.5) ? ` WHERE ${condition(rng, 2)}` : ''}`;
    case 2:
      return `DELETE FROM ${collection(rng)}${rng.chance(0.5) ? ` WHERE ${condition(rng, 2)}` : ''}`;
    case 3:
      return `CREATE ${rng.pick(['', 'UNIQUE '])}INDEX ${rng.pick(['i', "'i.x'", 'I_1'])} ON ${collection(rng)} (${rng.pick(['a', 'a, b', 'tags[*]', 'a.b, tags[*].x'])})`;
    case 4:
      return `DROP INDEX i ON ${collection(rng)}`;
    default:
      return select(rng) + rng.pick(['', ';', ' ;']);
  }
}

// ---- mutations and the nasty cases ------------------------------------------------------

function mutate(rng: Rng, text: string): string {
  let out = text;
  const edits = 1 + rng.int(3);
  for (let i = 0; i < edits; i++) {
    const at = rng.int(out.length + 1);
    switch (rng.int(5)) {
      case 0: // truncate
        out = out.slice(0, at);
        break;
      case 1: // delete a run
        out = out.slice(0, at) + out.slice(at + 1 + rng.int(5));
        break;
      case 2: // insert a token
        out = `${out.slice(0, at)} ${token(rng)} ${out.slice(at)}`;
        break;
      case 3: // insert a character
        out = out.slice(0, at) + rng.pick(NOISE) + out.slice(at);
        break;
      default: // duplicate a slice
        out = out.slice(0, at) + out.slice(rng.int(out.length + 1));
        break;
    }
  }
  return out;
}

/** Options of the generator. */
export interface FuzzOptions {
  /**
   * Deepest nesting of parentheses and NOT chains generated (the parser refuses more than
   * SQL_NESTING_MAX levels with ERR_SQL_SYNTAX).
   */
  maxDepth?: number;
}

export const FUZZ_DEPTH_DEFAULT = 1000;

function nested(rng: Rng, maxDepth: number): string {
  const depth = 1 + rng.int(maxDepth);
  const inner = rng.chance(0.5) ? condition(rng, 1) : token(rng);
  switch (rng.int(5)) {
    case 0:
      return `SELECT * FROM t WHERE ${'('.repeat(depth)}${inner}${')'.repeat(depth)}`;
    case 1:
      return `SELECT * FROM t WHERE ${'('.repeat(depth)}${inner}${')'.repeat(rng.int(depth))}`;
    case 2:
      return `SELECT * FROM t WHERE ${'NOT '.repeat(depth)}${inner}`;
    case 3:
      return `SELECT * FROM t WHERE ${'NOT ('.repeat(depth)}a = 1${')'.repeat(depth)}`;
    default:
      return `INSERT INTO t VALUES ${'['.repeat(depth)}${rng.pick(['{"a":1}', '', '1'])}${']'.repeat(rng.chance(0.7) ? depth : rng.int(depth))}`;
  }
}

function huge(rng: Rng): string {
  const digits = '9'.repeat(1 + rng.int(2000));
  switch (rng.int(6)) {
    case 0:
      return `SELECT * FROM t WHERE a = ${digits}`;
    case 1:
      return `SELECT * FROM t LIMIT ${digits}`;
    case 2:
      return `SELECT * FROM t WHERE a > -${digits}.${digits}e${digits}`;
    case 3:
      return `SELECT * FROM t WHERE a IN (${Array.from({ length: 1 + rng.int(500) }, (_, i) => i).join(', ')})`;
    case 4:
      return `SELECT ${'a.'.repeat(rng.int(400))}b FROM t`;
    default:
      return `SELECT * FROM t WHERE ${Array.from({ length: 1 + rng.int(500) }, () => 'a = 1').join(rng.pick([' OR ', ' AND ']))}`;
  }
}

function unterminated(rng: Rng): string {
  const prefix = rng.pick([
    'SELECT * FROM t WHERE a = ',
    'INSERT INTO t VALUES ',
    'UPDATE t SET a = ',
    'SELECT ',
    'SELECT * FROM ',
    '',
  ]);
  const tail = rng.pick([
    "'abc",
    "'it''",
    '"abc',
    '"a""',
    '{"a":1',
    '{"a":"}',
    '[1,[2,',
    '{"a":"\\',
    '[',
    'a[0',
    'a[',
    "'",
    '"',
  ]);
  return prefix + tail + (rng.chance(0.3) ? rng.pick(WHITESPACE) + token(rng) : '');
}

/** The `index`-th input of the stream for `seed` (the stream is a pure function of both). */
export function fuzzInput(seed: number, index: number, options: FuzzOptions = {}): string {
  const rng = new Rng(Math.imul(seed, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b));
  const maxDepth = options.maxDepth ?? FUZZ_DEPTH_DEFAULT;
  const kind = rng.int(100);
  if (kind < 25) return tokenSoup(rng);
  if (kind < 35) return noise(rng);
  if (kind < 50) return validStatement(rng);
  if (kind < 75) return mutate(rng, validStatement(rng));
  if (kind < 82) return validStatement(rng).slice(0, rng.int(80));
  if (kind < 88) return unterminated(rng);
  if (kind < 94) return huge(rng);
  if (kind < 98) return nested(rng, maxDepth);
  return `${tokenSoup(rng)}${noise(rng)}${tokenSoup(rng)}`;
}

/** What one parse gave. */
export type Verdict =
  | { kind: 'statement'; statement: string }
  | { kind: 'typed-error'; code: string }
  | { kind: 'finding'; why: string; error: unknown };

/**
 * Parses `sql` and judges the outcome: a statement, or a DbError with an ERR_SQL_* code whose
 * details hold a line and column that lie inside the text (or just past its end). Anything
 * else (another exception, a typed error without a position, a position outside the text) is
 * a finding.
 */
export function judgeParse(sql: string): Verdict {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(sql);
  } catch (error) {
    if (!isDbError(error)) {
      return { kind: 'finding', why: `threw a non-DbError: ${String(error)}`, error };
    }
    if (!error.code.startsWith('ERR_SQL_')) {
      return { kind: 'finding', why: `DbError with code ${error.code}`, error };
    }
    const { line, column } = (error.details ?? {}) as { line?: unknown; column?: unknown };
    if (!Number.isInteger(line) || !Number.isInteger(column)) {
      return { kind: 'finding', why: 'no line and column in the details', error };
    }
    const lines = sql.split('\n');
    const text = lines[(line as number) - 1];
    if (text === undefined || (column as number) < 1 || (column as number) > text.length + 1) {
      return { kind: 'finding', why: `position ${line}:${column} is outside the text`, error };
    }
    if (!error.message.endsWith(` at ${line}:${column}`)) {
      return { kind: 'finding', why: 'the message does not end with its position', error };
    }
    return { kind: 'typed-error', code: error.code };
  }
  const { statement, paramCount } = parsed;
  if (!Number.isInteger(paramCount) || paramCount < 0) {
    return { kind: 'finding', why: `bad paramCount ${paramCount}`, error: undefined };
  }
  return { kind: 'statement', statement: statement.kind };
}

/** A short, printable form of an input for reports. */
export function showInput(sql: string, max = 300): string {
  const shown = JSON.stringify(sql.length > max ? `${sql.slice(0, max)}…` : sql);
  return `${shown} (${sql.length} chars)`;
}
