/**
 * The HTTP fuzz generator shared by test/e2e/http-fuzz.test.ts (a few thousand requests in
 * `npm test`) and bench/fuzz-http.ts (100,000 and more): seeded, so request `i` of seed `s`
 * is always the same request. Requests mix methods (unusual ones included), paths built from
 * the real route templates with random segments, random query strings, headers
 * (Content-Type variants, Authorization with and without the key) and bodies (valid JSON of
 * every kind, endpoint-shaped bodies, SQL, truncated JSON, huge numbers, deep nesting, binary
 * garbage, empty). It also owns the fuzz app (a temp database with a little data, an API key
 * and a small body limit) and the verdict on one answer. In-process only: `app.inject()`.
 */

import * as http from 'node:http';
import { type Database, open, seedOrders } from '../../src/engine/index.js';
import { buildApp } from '../../src/server/app.js';
import { DOCUMENTED_CODES } from '../support/app-harness.js';
import { makeTempDir } from '../support/temp-dir.js';
import { Rng } from '../../src/util/index.js';

/** The API key of the fuzz app; most requests carry it, some a wrong one or none. */
export const FUZZ_API_KEY = 'fuzz-key-7f3a9c';
/** The fuzz app's body limit: small, so that some generated bodies pass it (413). */
export const FUZZ_BODY_BYTES_MAX = 64 * 1024;
/**
 * Default nesting of generated SQL conditions: past SQL_NESTING_MAX (256), so generated
 * statements land on both sides of the limit; the bench script's --sql-depth goes deeper.
 */
export const FUZZ_SQL_DEPTH_DEFAULT = 1000;
/** Default nesting of generated JSON bodies (JSON.parse does not recurse on the stack). */
export const FUZZ_JSON_DEPTH_DEFAULT = 5000;

/** Knobs of the generator. */
export interface FuzzOptions {
  sqlDepthMax?: number;
  jsonDepthMax?: number;
}

/** Names the generator builds paths and bodies from: what the fuzz app holds. */
export interface FuzzContext {
  collections: string[];
  ids: string[];
  pnrs: string[];
  indexes: string[];
  fields: string[];
}

/** One generated request, in the shape `app.inject()` takes. */
export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

export { Rng };

/** Every route of spec §4 but replication, as method and template. */
export const ROUTES: readonly (readonly [string, string])[] = [
  ['GET', '/health'],
  ['POST', '/query'],
  ['GET', '/stats'],
  ['GET', '/collections'],
  ['POST', '/collections/{name}'],
  ['POST', '/collections/{name}/bulk'],
  ['GET', '/collections/{name}'],
  ['GET', '/collections/{name}/by/{field}/{value}'],
  ['PUT', '/collections/{name}/by/{field}/{value}'],
  ['DELETE', '/collections/{name}/by/{field}/{value}'],
  ['DELETE', '/collections/{name}'],
  ['GET', '/collections/{name}/{id}'],
  ['PUT', '/collections/{name}/{id}'],
  ['DELETE', '/collections/{name}/{id}'],
  ['GET', '/indexes/{name}'],
  ['POST', '/index'],
  ['POST', '/seed'],
  ['POST', '/admin/flush'],
  ['POST', '/admin/checkpoint'],
  ['POST', '/admin/compact/{name}'],
  ['POST', '/admin/rebuild-indexes/{name}'],
  ['POST', '/admin/rebuild-index/{name}/{index}'],
  ['GET', '/openapi.json'],
  ['GET', '/metrics'],
];

/** The routes that take the richest input come up more often. */
const WEIGHTED_ROUTES: readonly (readonly [string, string])[] = [
  ...ROUTES,
  ...ROUTES.filter(([, template]) =>
    ['/query', '/collections/{name}', '/collections/{name}/by/{field}/{value}'].includes(template),
  ),
  ['POST', '/query'],
  ['POST', '/query'],
];

const COMMON_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH', 'OPTIONS'];
/** Every method Node's parser knows (PROPFIND, MKCOL, M-SEARCH, QUERY, …). */
const ALL_METHODS = http.METHODS;

const ODD_PATHS = [
  '/',
  '//',
  '/collections/',
  '//collections//x',
  '/replication/status',
  '/admin',
  '/admin/',
  '/index/',
  '/health/',
  '/HEALTH',
  '/../../etc/passwd',
  '/%2e%2e/%2e%2e/',
  '/collections/%',
  '/query%00',
  '/*',
  '/openapi.json/x',
];

const BAD_SEGMENTS = [
  '',
  '.',
  '..',
  '%',
  '%zz',
  '%E0%A4%A',
  '%00',
  '%2F',
  '%25',
  '%20',
  '%C3%A9',
  '%F0%9F%92%A9',
  'bad$name',
  'q%22uote',
  'a%2Fb',
  '__proto__',
  'constructor',
  'by',
  'bulk',
];

function longText(rng: Rng): string {
  return 'x'.repeat(rng.pick([99, 100, 101, 128, 129, 200, 600, 5000]));
}

function collectionSegment(rng: Rng, context: FuzzContext): string {
  const roll = rng.int(20);
  const real = rng.pick(context.collections);
  if (roll < 12) return real;
  if (roll < 14) return real.toUpperCase();
  if (roll < 17) return `fz${rng.int(6)}${rng.chance(0.3) ? '.sub-x' : ''}`;
  if (roll < 19) return rng.pick(BAD_SEGMENTS);
  return longText(rng);
}

function fieldSegment(rng: Rng, context: FuzzContext): string {
  const roll = rng.int(10);
  if (roll < 7) return rng.pick(context.fields);
  if (roll < 9) {
    return rng.pick([
      '_id',
      'a[',
      'a..b',
      '[0]',
      'a[*]',
      'a[*].b[*]',
      'a%5B0%5D',
      'a[99999999999999999999]',
      'a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g',
      'x'.repeat(513),
    ]);
  }
  return rng.pick(BAD_SEGMENTS) || 'f';
}

const GOOD_VALUES = ['30', '31', 'ada', 'grace', 'x', 'London', 'confirmed', 'cancelled', 'web'];

function valueSegment(rng: Rng): string {
  if (rng.chance(0.6)) return rng.pick(GOOD_VALUES);
  return rng.pick([
    '30',
    '-0',
    '0',
    '1.5',
    '1e400',
    '-1e400',
    '1e-400',
    '123456789012345678901234567890',
    'null',
    'true',
    'false',
    'NaN',
    'Infinity',
    'ada',
    'Lovelace',
    'CDG',
    '%22quoted%22',
    'a%20b%2Fc',
    '%27%3B%20DROP',
    '%F0%9F%92%A9',
    '%ED%A0%80',
    ...BAD_SEGMENTS,
    longText(rng),
  ]);
}

function idSegment(rng: Rng, context: FuzzContext): string {
  const real =
    context.ids.length > 0 ? rng.pick(context.ids) : '01a20452-8944-743a-bb4d-37c5e2ee9eb0';
  if (rng.chance(0.5)) return real;
  return rng.pick([
    real,
    real,
    real.replaceAll('-', ''),
    real.toUpperCase(),
    '01a20452-8944-743a-bb4d-37c5e2ee9eb0',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    'nothex',
    '1234',
    `${real}0`,
    real.replace(/[0-9a-f]/, 'g'),
    ...BAD_SEGMENTS,
  ]);
}

function indexSegment(rng: Rng, context: FuzzContext): string {
  const real = context.indexes.length > 0 ? rng.pick(context.indexes) : 'idx';
  if (rng.chance(0.6)) return real;
  return rng.pick([real.toUpperCase(), 'nope', 'fz_idx', ...BAD_SEGMENTS]);
}

function fillTemplate(rng: Rng, template: string, context: FuzzContext): string {
  return template
    .replace('{name}', () => collectionSegment(rng, context))
    .replace('{field}', () => fieldSegment(rng, context))
    .replace('{value}', () => valueSegment(rng))
    .replace('{id}', () => idSegment(rng, context))
    .replace('{index}', () => indexSegment(rng, context));
}

const QUERY_KEYS = [
  'limit',
  'after',
  'atomic',
  'skipIndexes',
  'stream',
  'q',
  'limit[]',
  '__proto__[x]',
];
const QUERY_VALUES = [
  '0',
  '1',
  '2',
  '100',
  '10000',
  '10001',
  '-1',
  '1.5',
  '1e3',
  '1e400',
  'abc',
  'true',
  'false',
  'TRUE',
  '',
  'null',
  '%zz',
  '%00',
  '01a20452-8944-743a-bb4d-37c5e2ee9eb0',
];

function queryString(rng: Rng, context: FuzzContext): string {
  if (rng.chance(0.5)) return '';
  if (rng.chance(0.1)) return rng.pick(['?', '?&&=&', '?%', '?=x', '?a=1&a=2&a=3', '?;']);
  const pairs: string[] = [];
  const count = 1 + rng.int(3);
  for (let i = 0; i < count; i++) {
    const key = rng.pick(QUERY_KEYS);
    const value =
      key === 'after' && rng.chance(0.5) ? idSegment(rng, context) : rng.pick(QUERY_VALUES);
    pairs.push(`${key}=${value}`);
  }
  return `?${pairs.join('&')}`;
}

function url(rng: Rng, template: string, context: FuzzContext): string {
  if (rng.chance(0.06)) return rng.pick(ODD_PATHS) + queryString(rng, context);
  if (rng.chance(0.04)) return `/${longText(rng)}`;
  return fillTemplate(rng, template, context) + queryString(rng, context);
}

// ---- JSON values -----------------------------------------------------------------------------

const KEYS = [
  'a',
  'b',
  'name',
  'age',
  'pnr',
  'status',
  'tags',
  'fare',
  'x',
  '_id',
  'é',
  '',
  'a.b',
  '$set',
];

function scalar(rng: Rng): unknown {
  return rng.pick<unknown>([
    0,
    -0,
    1,
    -1,
    30,
    '30',
    1.5,
    2 ** 53 + 1,
    -(2 ** 63),
    1e308,
    5e-324,
    'ada',
    '',
    'x'.repeat(rng.int(300)),
    'emoji 💩',
    'quote "\' \\ /',
    true,
    false,
    null,
  ]);
}

function jsonValue(rng: Rng, depth: number): unknown {
  const roll = rng.int(10);
  if (depth > 4 || roll < 5) return scalar(rng);
  if (roll < 8) {
    const object: Record<string, unknown> = {};
    const count = rng.int(5);
    for (let i = 0; i < count; i++) object[rng.pick(KEYS)] = jsonValue(rng, depth + 1);
    return object;
  }
  return Array.from({ length: rng.int(5) }, () => jsonValue(rng, depth + 1));
}

function documentValue(rng: Rng, context: FuzzContext): Record<string, unknown> {
  // Some documents collide with what the app holds: a unique name or pnr, a stored _id.
  if (rng.chance(0.2)) {
    return rng.pick<Record<string, unknown>>([
      { name: rng.pick(['ada', 'alan', 'grace']) },
      { _id: rng.pick(context.ids), x: 1 },
      { pnr: rng.pick(context.pnrs), status: 'confirmed' },
    ]);
  }
  const doc: Record<string, unknown> = {};
  const count = rng.int(6);
  for (let i = 0; i < count; i++) {
    const key = rng.chance(0.6) ? rng.pick(context.fields).split(/[.[]/)[0] || 'a' : rng.pick(KEYS);
    doc[key] = jsonValue(rng, 1);
  }
  if (rng.chance(0.1)) doc._id = idSegment(rng, context);
  return doc;
}

// ---- SQL ---------------------------------------------------------------------------------------

function sqlLiteral(rng: Rng): string {
  return rng.pick([
    '1',
    '30',
    "'30'",
    "'ada'",
    "'Lovelace'",
    "'CDG'",
    'null',
    'true',
    '1e400',
    '-0',
    "'it''s'",
    "'unterminated",
    '?',
    '123456789012345678901234567890',
  ]);
}

function sqlCondition(rng: Rng, context: FuzzContext): string {
  const field = rng.pick([...context.fields, 'nope', 'a[*]', 'a[', '"select"']);
  return rng.pick([
    `${field} = ${sqlLiteral(rng)}`,
    `${field} != ${sqlLiteral(rng)}`,
    `${field} > ${sqlLiteral(rng)}`,
    `${field} <= ${sqlLiteral(rng)}`,
    `${field} LIKE '%a%'`,
    `${field} ILIKE 'A_'`,
    `${field} IS NULL`,
    `${field} IS NOT NULL`,
    `${field} IN (${sqlLiteral(rng)}, ${sqlLiteral(rng)}, ${sqlLiteral(rng)})`,
    `${field} IN ()`,
    `NOT ${field} = ${sqlLiteral(rng)}`,
    `(${field} = ${sqlLiteral(rng)} OR ${field} = ${sqlLiteral(rng)}) AND ${field} IS NOT NULL`,
  ]);
}

function nested(rng: Rng, inner: string, depthMax: number): string {
  const depth = rng.int(depthMax + 1);
  if (rng.chance(0.5)) return `${'('.repeat(depth)}${inner}${')'.repeat(depth)}`;
  return `${'NOT '.repeat(depth)}${inner}`;
}

function sqlText(rng: Rng, context: FuzzContext, options: Required<FuzzOptions>): string {
  const c = rng.chance(0.85) ? rng.pick(context.collections) : collectionSegment(rng, context);
  const other = rng.pick(context.collections);
  const f = rng.pick(context.fields);
  const where = rng.chance(0.7) ? ` WHERE ${sqlCondition(rng, context)}` : '';
  switch (rng.int(18)) {
    case 0: {
      const deep = nested(rng, sqlCondition(rng, context), options.sqlDepthMax);
      return `SELECT * FROM ${c} WHERE ${deep}`;
    }
    case 1:
      return rng.pick(['', ' ', ';', 'SELECT', 'SELEC * FROM x', '-- only a comment']);
    case 2:
      return `SELECT * FROM ${c}${where} ${rng.pick(['garbage', ')', "'", ',', '*'])}`;
    case 3:
      return JSON.stringify(jsonValue(rng, 0));
    case 4:
      return `SELECT * FROM ${c}${where} ORDER BY ${f} DESC LIMIT ${rng.int(20)} OFFSET 1`;
    case 5:
      return `SELECT DISTINCT ${f} FROM ${c}${where}`;
    case 6:
      return `SELECT ${f}, COUNT(*), SUM(${f}), MAX(${f}) FROM ${c}${where} GROUP BY ${f}`;
    case 7:
      return `SELECT COUNT(*) FROM ${c}${where}`;
    case 8:
      return `SELECT * FROM ${c} JOIN ${other} ON ${c}.${f} = ${other}.${f}`;
    case 9:
      return `SELECT * FROM ${c} LIMIT 99999999999999999999`;
    case 10:
      return `INSERT INTO ${c} VALUES ${JSON.stringify(documentValue(rng, context))}`;
    case 11: {
      const bad = rng.pick(['[1]', '1', 'null', '{', '{"a":}', `{"a":${'['.repeat(200)}`]);
      return `INSERT INTO ${c} VALUES ${bad}`;
    }
    case 12:
      return `UPDATE ${c} SET ${f} = ${sqlLiteral(rng)}${where}`;
    case 13:
      return `UPDATE ${c} SET ${f} = ${JSON.stringify(jsonValue(rng, 1))}${where}`;
    case 14:
      return `DELETE FROM ${c}${where || ` WHERE ${f} = ${sqlLiteral(rng)}`}`;
    case 15: {
      const unique = rng.chance(0.3) ? 'UNIQUE ' : '';
      const paths = rng.chance(0.3) ? `${f}, ${rng.pick(context.fields)}` : f;
      return `CREATE ${unique}INDEX fz_${rng.int(20)} ON ${c} (${paths})`;
    }
    case 16:
      return `DROP INDEX ${indexSegment(rng, context)} ON ${c}`;
    default:
      return `SELECT * FROM ${c}${where}`;
  }
}

function sqlParams(rng: Rng): unknown {
  return rng.pick<unknown>([
    undefined,
    undefined,
    [],
    [1],
    ['ada', 30],
    [null],
    [{ a: 1 }],
    [[1, 2]],
    'not an array',
    { a: 1 },
  ]);
}

// ---- bodies ------------------------------------------------------------------------------------

function truncated(rng: Rng, text: string): string {
  return text.length <= 1 ? text : text.slice(0, rng.int(text.length));
}

function deepJson(rng: Rng, depthMax: number): string {
  const depth = 1 + rng.int(depthMax);
  if (rng.chance(0.5)) return `${'['.repeat(depth)}${']'.repeat(depth)}`;
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

function garbage(rng: Rng): Buffer {
  const bytes = Buffer.alloc(rng.int(300));
  for (let i = 0; i < bytes.length; i++) bytes[i] = rng.int(256);
  return bytes;
}

const ODD_JSON = [
  '',
  ' ',
  '\n',
  '\ufeff{}',
  '1e999',
  '-1e999',
  '123456789012345678901234567890',
  '{"a":1e400}',
  '[1e-400]',
  '{"n":9007199254740993}',
  '{"a":1,"a":2}',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '"\\ud800"',
  '{"a":"\\ud800"}',
  '{"\\ud800":1}',
  'NaN',
  'undefined',
  "{'a':1}",
  '{a:1}',
  '[,]',
  '{"a":1}{"b":2}',
];

/** A body shaped for the endpoint, often valid; `null` for none. */
function endpointBody(
  rng: Rng,
  template: string,
  context: FuzzContext,
  options: Required<FuzzOptions>,
): unknown {
  switch (template) {
    case '/query': {
      const sql = sqlText(rng, context, options);
      const body: Record<string, unknown> = { sql };
      // Parameters mostly go with placeholders, so that most statements get to run.
      const params = sql.includes('?') || rng.chance(0.1) ? sqlParams(rng) : undefined;
      if (params !== undefined) body.params = params;
      if (rng.chance(0.05)) body.extra = 1;
      return body;
    }
    case '/collections/{name}':
    case '/collections/{name}/by/{field}/{value}':
    case '/collections/{name}/{id}':
      return documentValue(rng, context);
    case '/collections/{name}/bulk':
      return Array.from({ length: rng.int(20) }, () =>
        rng.chance(0.9) ? documentValue(rng, context) : jsonValue(rng, 1),
      );
    case '/index': {
      const body: Record<string, unknown> = {};
      if (rng.chance(0.9)) body.collection = rng.pick(context.collections);
      if (rng.chance(0.7))
        body.path = rng.chance(0.8) ? rng.pick(context.fields) : fieldSegment(rng, context);
      if (rng.chance(0.2)) body.paths = [rng.pick(context.fields), rng.pick(context.fields)];
      if (rng.chance(0.3))
        body.name = rng.chance(0.8) ? `fz_${rng.int(30)}` : indexSegment(rng, context);
      if (rng.chance(0.3)) body.unique = rng.pick([true, false, 'yes', 1]);
      return body;
    }
    default:
      return null;
  }
}

/**
 * POST /seed bodies always name a small `orders` or are refused: no body, an empty one and
 * `{}` seed the default 10,000 orders, which would turn the fuzz run into a load test.
 */
function seedBody(rng: Rng): string | Buffer {
  const roll = rng.int(10);
  const valid = rng.pick<unknown>([
    { orders: rng.int(4) },
    { orders: rng.int(4), seed: rng.int(100) },
    { orders: -1 },
    { orders: 1.5 },
    { orders: 'many' },
    { orders: 10_000_001 },
    { orders: 2, seed: -1 },
    { orders: 1, seed: 'x' },
  ]);
  if (roll < 6) return JSON.stringify(valid);
  if (roll < 7) return truncated(rng, JSON.stringify(valid));
  if (roll < 8) return garbage(rng);
  if (roll < 9) return `${'['.repeat(1 + rng.int(1000))}`;
  return rng.pick(['{,}', ' ', '[]', '"x"', '7', 'null', 'NaN', '1e999', '{"orders":']);
}

function payload(
  rng: Rng,
  method: string,
  template: string,
  context: FuzzContext,
  options: Required<FuzzOptions>,
): string | Buffer | undefined {
  // Bodies mostly go with the methods that take one, but not only.
  const wants = method === 'POST' || method === 'PUT' ? 0.9 : 0.15;
  // POST /seed without a body seeds the default count (see seedBody).
  if (!rng.chance(wants)) return template === '/seed' ? '{"orders":0}' : undefined;
  if (template === '/seed') return seedBody(rng);
  const roll = rng.int(20);
  if (roll < 11) {
    const body = endpointBody(rng, template, context, options);
    if (body !== null) return JSON.stringify(body);
  }
  if (roll < 13) return JSON.stringify(jsonValue(rng, 0));
  if (roll < 15) {
    const text = JSON.stringify(endpointBody(rng, template, context, options) ?? jsonValue(rng, 0));
    return truncated(rng, text);
  }
  if (roll < 17) return rng.pick(ODD_JSON);
  if (roll < 18) return deepJson(rng, options.jsonDepthMax);
  if (roll < 19) return garbage(rng);
  // A body around the fuzz app's limit: some pass, some are 413.
  const size = FUZZ_BODY_BYTES_MAX + rng.int(2000) - 1000;
  return `{"pad":"${'p'.repeat(Math.max(0, size - 10))}"}`;
}

// ---- headers -----------------------------------------------------------------------------------

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;',
  'application/vnd.api+json',
  'application/x-ndjson',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  '',
  ';;;',
  '*/*',
];

function authorization(rng: Rng): string | undefined {
  const roll = rng.int(20);
  if (roll < 17) return `Bearer ${FUZZ_API_KEY}`;
  return rng.pick([
    undefined,
    'Bearer wrong',
    `Basic ${FUZZ_API_KEY}`,
    'Bearer',
    'Bearer ',
    '',
    `bearer ${FUZZ_API_KEY}`,
    `Bearer ${FUZZ_API_KEY} ${FUZZ_API_KEY}`,
    `Bearer ${'k'.repeat(5000)}`,
  ]);
}

function headers(rng: Rng, body: string | Buffer | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const auth = authorization(rng);
  if (auth !== undefined) out.authorization = auth;
  if (body !== undefined ? rng.chance(0.97) : rng.chance(0.1)) {
    out['content-type'] = rng.chance(0.75) ? 'application/json' : rng.pick(CONTENT_TYPES);
  }
  if (rng.chance(0.2)) {
    out.accept = rng.pick([
      'application/x-ndjson',
      '*/*',
      'text/html',
      'application/json, application/x-ndjson;q=0.9',
    ]);
  }
  // Rare enough that the seeded collections live through most of a run.
  if (rng.chance(0.15)) out['x-confirm'] = rng.pick(['true', 'false', 'TRUE', '']);
  if (rng.chance(0.1)) {
    out['x-request-id'] = rng.pick(['fz-1', 'has space', 'r'.repeat(200), '', 'a:b.c_d-e']);
  }
  if (rng.chance(0.05)) {
    const [name, value] = rng.pick([
      ['content-encoding', 'gzip'],
      ['content-length', '0'],
      ['content-length', '99999'],
      ['content-length', 'abc'],
      ['expect', '100-continue'],
      ['x-forwarded-for', '1.2.3.4, 5.6.7.8'],
      ['x-http-method-override', 'DELETE'],
      ['if-none-match', '*'],
      ['range', 'bytes=0-1'],
    ] as const);
    out[name] = value;
  }
  if (rng.chance(0.05)) out[`x-fz-${rng.int(100)}`] = 'v'.repeat(rng.int(100));
  return out;
}

// ---- requests ----------------------------------------------------------------------------------

function method(rng: Rng, routeMethod: string): string {
  const roll = rng.int(20);
  if (roll < 17) return routeMethod;
  if (roll < 19) return rng.pick(COMMON_METHODS);
  return rng.pick(ALL_METHODS);
}

/** Request `index` of `seed`: the same arguments always give the same request. */
export function fuzzRequest(
  seed: number,
  index: number,
  context: FuzzContext,
  options: FuzzOptions = {},
): FuzzRequest {
  const full: Required<FuzzOptions> = {
    sqlDepthMax: options.sqlDepthMax ?? FUZZ_SQL_DEPTH_DEFAULT,
    jsonDepthMax: options.jsonDepthMax ?? FUZZ_JSON_DEPTH_DEFAULT,
  };
  const rng = new Rng((seed * 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b));
  const [routeMethod, template] = rng.pick(WEIGHTED_ROUTES);
  const chosen = method(rng, routeMethod);
  const path = url(rng, template, context);
  const body = payload(rng, chosen, template, context, full);
  return {
    method: chosen,
    url: path,
    headers: headers(rng, body),
    ...(body !== undefined && { payload: body }),
  };
}

/** The request as text to reproduce it, long parts cut. */
export function showRequest(request: FuzzRequest, max = 400): string {
  const cut = (text: string) =>
    text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
  const body =
    request.payload === undefined
      ? '(no body)'
      : Buffer.isBuffer(request.payload)
        ? `<${request.payload.length} bytes> ${request.payload.toString('hex').slice(0, max)}`
        : cut(JSON.stringify(request.payload));
  const head = `${request.method} ${cut(request.url)}`;
  return `${head}\nheaders: ${cut(JSON.stringify(request.headers))}\nbody: ${body}`;
}

// ---- verdicts ----------------------------------------------------------------------------------

/** What one answer says about the server. */
export type Verdict =
  | { kind: 'ok' }
  | { kind: 'server-error'; why: string }
  | { kind: 'undocumented-error'; why: string };

/**
 * A 5xx is a finding (the fuzz app is never read-only, so not even 503 is expected). A 4xx
 * whose body lacks `{ error, code }` with a documented code, or which has no X-Request-Id, is
 * an undocumented error: known router-level bugs produce some (src/server/requests.test.ts).
 */
export function judgeAnswer(
  method: string,
  status: number,
  headers: Record<string, unknown>,
  text: string,
): Verdict {
  if (status >= 500)
    return { kind: 'server-error', why: `status ${status}: ${text.slice(0, 300)}` };
  if (typeof headers['x-request-id'] !== 'string') {
    return { kind: 'undocumented-error', why: `no X-Request-Id on a ${status}` };
  }
  if (status < 400 || method === 'HEAD') return { kind: 'ok' };
  let body: { error?: unknown; code?: unknown } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'undocumented-error', why: `a ${status} without a JSON body` };
  }
  if (
    typeof body?.error !== 'string' ||
    typeof body.code !== 'string' ||
    !DOCUMENTED_CODES.has(body.code)
  ) {
    return { kind: 'undocumented-error', why: `a ${status} with body ${text.slice(0, 200)}` };
  }
  return { kind: 'ok' };
}

// ---- the fuzz app ------------------------------------------------------------------------------

/** The app under fuzz, what it holds, and how to close it. */
export interface FuzzApp {
  app: ReturnType<typeof buildApp>;
  db: Database;
  context: FuzzContext;
  close(): Promise<void>;
}

/** Fixed ids, so that a seed gives the same requests in every run (ids are time-based). */
const FIXED_IDS = [1, 2, 3, 4, 5, 6].map(
  (n) => `01900000-0000-7000-8000-${String(n).padStart(12, '0')}`,
);

/** A temp database with a few orders, people and indexes, behind an API key. */
export async function startFuzzApp(): Promise<FuzzApp> {
  const temp = makeTempDir('docdb-http-fuzz-');
  const db = await open(temp.dir);
  // The same seed on an empty file gives the same orders, so the PNRs are fixed too.
  await seedOrders(db, { count: 40, seed: 1 });
  const people = db.collection('people');
  for (const [i, name] of ['ada', 'alan', 'grace', 'linus', 'barbara'].entries()) {
    const city = i % 2 ? 'London' : '30';
    await people.insert({ _id: FIXED_IDS[i], name, age: 30 + i, tags: ['x', name], city });
  }
  await people.createIndex({ paths: ['name'], unique: true });
  await people.createIndex({ paths: ['tags[*]'], name: 'ByTag' });
  await db.collection('Mixed.Case-1').insert({ _id: FIXED_IDS[5], a: 1, b: { c: [1, 2] } });
  const pnrs = db
    .collection('orders')
    .list({ limit: 5 })
    .map((d) => String(d.pnr));
  const app = buildApp(db, { apiKey: FUZZ_API_KEY, bodyBytesMax: FUZZ_BODY_BYTES_MAX });
  await app.ready();
  return {
    app,
    db,
    context: {
      collections: ['orders', 'people', 'mixed.case-1'],
      ids: FIXED_IDS,
      pnrs,
      indexes: [
        'idx_orders_pnr',
        'idx_orders_status',
        'idx_orders_status_channel',
        'idx_people_name',
        'ByTag',
      ],
      fields: [
        'name',
        'age',
        'pnr',
        'status',
        'channel',
        'fare.total',
        'passengers[0].lastName',
        'passengers[*].lastName',
        'flights[*].from',
        'tags[*]',
        'tags[1]',
        'b.c[0]',
        'a',
      ],
    },
    async close() {
      await app.close();
      await db.close();
      temp.cleanup();
    },
  };
}

/** Sends one generated request to the app; the answer's status, headers and text. */
export async function send(
  app: FuzzApp['app'],
  request: FuzzRequest,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const response = await app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers,
    ...(request.payload !== undefined && { payload: request.payload }),
  });
  return { status: response.statusCode, headers: response.headers, text: response.body };
}
