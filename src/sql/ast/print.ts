/**
 * The AST printer: SQL text that parses back to the same statement (positions aside), so a
 * router can rewrite a statement as an AST and send it on as text. It quotes what needs it:
 * string literals (`''`), field names that are keywords or not plain identifiers (double
 * quotes, `""`), aliases and index names as string literals. The find conditions `match` and
 * `within` have no SQL text. Pure: imports nothing above the AST.
 */

import { dbError } from '../../errors/index.js';
import { type JsonPath, parsePath } from '../../util/index.js';
import {
  assertNever,
  type Condition,
  type JsonValue,
  type Operand,
  type SelectItem,
  type SelectStatement,
  type Statement,
  type Value,
} from './ast.js';
import { SQL_KEYWORDS } from './keywords.js';

const KEYWORDS = new Set(SQL_KEYWORDS);
/** A name the lexer reads back as one unquoted identifier. */
const PLAIN_START = /^[A-Za-z_][A-Za-z0-9_$-]*$/;
const PLAIN_PART = /^[A-Za-z0-9_$-]+$/;
/** A collection name the lexer reads back as a name or number (it starts with a digit). */
const DIGIT_LED = /^[0-9][A-Za-z0-9_.-]*$/;

function isKeyword(text: string): boolean {
  return KEYWORDS.has(text.toUpperCase());
}

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A JSON value as the lexer reads it back (-0 kept, which JSON.stringify drops). */
function jsonText(value: JsonValue): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A string literal: single quotes, a quote doubled. */
export function stringLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function printValue(value: Value): string {
  if (value.kind === 'param') return '?';
  const v = value.value;
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'string') return stringLiteral(v);
  return jsonText(v);
}

/** A field path: plain field names bare, others quoted; a whole keyword quoted. */
export function printPath(text: string): string {
  const path: JsonPath = parsePath(text, { allowEach: true });
  let out = '';
  path.segments.forEach((segment, i) => {
    if (segment.kind === 'field') {
      const plain = (i === 0 ? PLAIN_START : PLAIN_PART).test(segment.name);
      const name = plain ? segment.name : quoted(segment.name);
      out += i === 0 ? name : `.${name}`;
    } else {
      out += segment.kind === 'index' ? `[${segment.index}]` : '[*]';
    }
  });
  return isKeyword(out) ? quoted(out) : out;
}

/** A collection name as FROM, JOIN and the write statements read it. */
export function printCollection(name: string): string {
  const bare =
    !name.includes('--') &&
    ((/^[A-Za-z_][A-Za-z0-9_.$-]*$/.test(name) && !isKeyword(name)) || DIGIT_LED.test(name));
  return bare ? name : quoted(name);
}

/** An alias or index name: bare when plain, else a string literal. */
function printName(name: string): string {
  return PLAIN_START.test(name) && !isKeyword(name) ? name : stringLiteral(name);
}

function printOperand(operand: Operand): string {
  return operand.kind === 'path' ? printPath(operand.text) : printValue(operand);
}

/** A condition that stands alone as an operand of AND, OR or NOT. */
function grouped(condition: Condition): string {
  const text = printCondition(condition);
  return condition.kind === 'and' || condition.kind === 'or' ? `(${text})` : text;
}

/** A WHERE or ON condition. */
export function printCondition(condition: Condition): string {
  switch (condition.kind) {
    case 'compare':
      return `${printOperand(condition.left)} ${condition.op} ${printOperand(condition.right)}`;
    case 'like': {
      const op = condition.caseInsensitive ? 'ILIKE' : 'LIKE';
      const not = condition.negated ? 'NOT ' : '';
      return `${printPath(condition.path.text)} ${not}${op} ${printValue(condition.pattern)}`;
    }
    case 'isNull':
      return `${printPath(condition.path.text)} IS ${condition.negated ? 'NOT ' : ''}NULL`;
    case 'and':
      return condition.conditions.map(grouped).join(' AND ');
    case 'or':
      return condition.conditions.map(grouped).join(' OR ');
    case 'not':
      return `NOT ${grouped(condition.condition)}`;
    case 'match':
    case 'within':
      throw dbError('ERR_SQL_INVALID', 'findConditionText', { kind: condition.kind });
    default:
      return assertNever(condition);
  }
}

function printItem(item: SelectItem): string {
  if (item.kind === 'column') {
    const text = printPath(item.path.text);
    return item.name === item.path.text ? text : `${text} AS ${printName(item.name)}`;
  }
  const arg = item.arg === '*' ? '*' : item.arg.text;
  const text = `${item.fn}(${item.arg === '*' ? '*' : printPath(arg)})`;
  return item.name === `${item.fn}(${arg})` ? text : `${text} AS ${printName(item.name)}`;
}

function printSelect(s: SelectStatement): string {
  let sql = `SELECT ${s.distinct ? 'DISTINCT ' : ''}`;
  sql += s.items === '*' ? '*' : s.items.map(printItem).join(', ');
  sql += ` FROM ${printCollection(s.from)}`;
  for (const join of s.joins) {
    sql += ` JOIN ${printCollection(join.collection)} ON ${printPath(join.left.text)} = ${printPath(join.right.text)}`;
  }
  if (s.where) sql += ` WHERE ${printCondition(s.where)}`;
  if (s.groupBy.length > 0)
    sql += ` GROUP BY ${s.groupBy.map((g) => printPath(g.text)).join(', ')}`;
  if (s.orderBy.length > 0) {
    const items = s.orderBy.map((o) => `${printPath(o.path.text)}${o.descending ? ' DESC' : ''}`);
    sql += ` ORDER BY ${items.join(', ')}`;
  }
  if (s.limit) sql += ` LIMIT ${printValue(s.limit)}`;
  if (s.offset) sql += ` OFFSET ${printValue(s.offset)}`;
  return sql;
}

/** SQL text of a statement; `parse(printStatement(s)).statement` equals `s` but for positions. */
export function printStatement(statement: Statement): string {
  switch (statement.kind) {
    case 'select':
      return printSelect(statement);
    case 'insert':
      return `INSERT INTO ${printCollection(statement.collection)} VALUES ${statement.documents.map(printValue).join(', ')}`;
    case 'update': {
      const set = statement.assignments.map(
        (a) => `${printPath(a.path.text)} = ${printValue(a.value)}`,
      );
      const where = statement.where ? ` WHERE ${printCondition(statement.where)}` : '';
      return `UPDATE ${printCollection(statement.collection)} SET ${set.join(', ')}${where}`;
    }
    case 'delete': {
      const where = statement.where ? ` WHERE ${printCondition(statement.where)}` : '';
      return `DELETE FROM ${printCollection(statement.collection)}${where}`;
    }
    case 'createIndex': {
      const paths = statement.paths.map(printPath).join(', ');
      return `CREATE ${statement.unique ? 'UNIQUE ' : ''}INDEX ${printName(statement.name)} ON ${printCollection(statement.collection)} (${paths})`;
    }
    case 'dropIndex':
      return `DROP INDEX ${printName(statement.name)} ON ${printCollection(statement.collection)}`;
    default:
      return assertNever(statement);
  }
}
