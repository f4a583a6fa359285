/**
 * The recursive-descent parser: tokens → one Statement. Every error is ERR_SQL_SYNTAX with
 * the line and column and a message naming what was expected and what was found. Paths are
 * checked here (`[*]` only in index definitions, rule 3); collections are resolved later.
 * Pure.
 */

import { type DbError, dbError } from '../../errors/index.js';
import { parsePath, SQL_NESTING_MAX } from '../../util/index.js';
import {
  type AggregateFn,
  type CompareOp,
  type Condition,
  type CreateIndexStatement,
  type DeleteStatement,
  type DropIndexStatement,
  type InsertStatement,
  type Join,
  type JsonValue,
  type Literal,
  type Operand,
  type OrderItem,
  type Param,
  type PathRef,
  type SelectItem,
  type SelectStatement,
  SQL_KEYWORDS,
  type Statement,
  type UpdateStatement,
  type Value,
} from '../ast/index.js';
import { syntaxError, type Token, tokenize } from '../lexer/index.js';
import { keywordAsNameHint, nearestKeyword } from './keyword-hint.js';

const KEYWORDS = new Set(SQL_KEYWORDS);

const AGGREGATES = new Set<AggregateFn>(['COUNT', 'SUM', 'AVG', 'MIN', 'MAX']);

/** The characters of a collection name (storage checks the rest of the rules). */
const COLLECTION_CHARS = /^[A-Za-z0-9._-]+$/;

function describe(token: Token): string {
  return token.kind === 'eof' ? 'end of input' : `'${token.text}'`;
}

class Parser {
  private index = 0;
  private params = 0;
  private depth = 0;
  /** Paths written in double quotes that a statement reads (see Parsed.quotedPaths). */
  readonly quoted: PathRef[] = [];

  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)] as Token;
  }

  private take(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.index++;
    return token;
  }

  /** True when the next token is the keyword (an unquoted identifier, any case). */
  private isKeyword(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'ident' && !token.quoted && token.text.toUpperCase() === word;
  }

  private acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.index++;
    return true;
  }

  private expectKeyword(word: string, context: string): void {
    if (!this.acceptKeyword(word)) this.fail(`expected ${word} ${context}`);
  }

  private isPunct(text: string): boolean {
    const token = this.peek();
    return token.kind === 'punct' && token.text === text;
  }

  private acceptPunct(text: string): boolean {
    if (!this.isPunct(text)) return false;
    this.index++;
    return true;
  }

  private expectPunct(text: string, context: string): void {
    if (!this.acceptPunct(text)) this.fail(`expected '${text}' ${context}`);
  }

  private fail(message: string, token: Token = this.peek()): never {
    // A number run on into name characters is the malformed number it is, unless it stood
    // where a collection name may.
    const deferred = token.error ?? this.peek().error;
    if (deferred) throw deferred;
    throw syntaxError(
      `${message}, found ${describe(token)}${this.hintFor(token, message)}`,
      token.at,
    );
  }

  /**
   * What a syntax error adds about the word it found: a keyword where a name belongs goes in
   * double quotes; a word a typo or two from a keyword is asked about that keyword.
   */
  private hintFor(token: Token, message: string): string {
    if (token.kind !== 'ident' || token.quoted) return '';
    if (this.isReserved(token)) {
      return this.usedAsName(token, message) ? `: ${keywordAsNameHint(token.text)}` : '';
    }
    const keyword = nearestKeyword(token.text, message);
    return keyword === undefined ? '' : ` (did you mean ${keyword}?)`;
  }

  /**
   * True when a keyword found where a name belongs was meant as one: always after FROM, JOIN
   * and the like (`FROM order`); as a field, when what follows it is what follows a name (an
   * operator, a comma, FROM, AS, the end), so `SELECT FROM c` is not told to quote FROM.
   */
  private usedAsName(token: Token, message: string): boolean {
    if (/expected a collection name/.test(message)) return true;
    if (!/expected (a field path|a name|a value)/.test(message)) return false;
    const next = this.tokens[this.tokens.indexOf(token) + 1];
    if (next === undefined || next.kind === 'eof' || next.kind === 'op') return true;
    if (next.kind === 'punct') return next.text === ',' || next.text === ')';
    const word = next.kind === 'ident' && !next.quoted ? next.text.toUpperCase() : '';
    return word === 'FROM' || word === 'AS';
  }

  // ---- statements ----------------------------------------------------------------------

  statement(): Statement {
    const first = this.peek();
    let statement: Statement;
    if (this.acceptKeyword('SELECT')) statement = this.select();
    else if (this.acceptKeyword('INSERT')) statement = this.insert();
    else if (this.acceptKeyword('UPDATE')) statement = this.update();
    else if (this.acceptKeyword('DELETE')) statement = this.delete();
    else if (this.acceptKeyword('CREATE')) statement = this.createIndex();
    else if (this.acceptKeyword('DROP')) statement = this.dropIndex();
    else {
      this.fail(
        'expected a statement (SELECT, INSERT, UPDATE, DELETE, CREATE INDEX or DROP INDEX)',
        first,
      );
    }
    this.acceptPunct(';');
    if (this.peek().kind !== 'eof') this.fail('expected the end of the statement');
    return statement;
  }

  private select(): SelectStatement {
    const distinct = this.acceptKeyword('DISTINCT');
    const items = this.acceptPunct('*') ? '*' : this.selectList();
    this.expectKeyword('FROM', 'after the select list');
    const from = this.collectionName('after FROM');
    const joins: Join[] = [];
    for (;;) {
      if (this.acceptKeyword('INNER')) this.expectKeyword('JOIN', 'after INNER');
      else if (!this.acceptKeyword('JOIN')) break;
      joins.push(this.join());
    }
    const where = this.acceptKeyword('WHERE') ? this.condition() : undefined;
    const groupBy: PathRef[] = [];
    if (this.acceptKeyword('GROUP')) {
      this.expectKeyword('BY', 'after GROUP');
      do groupBy.push(this.path('in GROUP BY'));
      while (this.acceptPunct(','));
    }
    const orderBy: OrderItem[] = [];
    if (this.acceptKeyword('ORDER')) {
      this.expectKeyword('BY', 'after ORDER');
      do orderBy.push(this.orderItem());
      while (this.acceptPunct(','));
    }
    const limit = this.acceptKeyword('LIMIT') ? this.count('LIMIT') : undefined;
    const offset = this.acceptKeyword('OFFSET') ? this.count('OFFSET') : undefined;
    return { kind: 'select', distinct, items, from, joins, where, groupBy, orderBy, limit, offset };
  }

  private selectList(): SelectItem[] {
    const items: SelectItem[] = [];
    do items.push(this.selectItem());
    while (this.acceptPunct(','));
    return items;
  }

  private selectItem(): SelectItem {
    const token = this.peek();
    const upper = token.kind === 'ident' && !token.quoted ? token.text.toUpperCase() : '';
    const next = this.peek(1);
    let item: SelectItem;
    if (AGGREGATES.has(upper as AggregateFn) && next.kind === 'punct' && next.text === '(') {
      this.index += 2;
      const fn = upper as AggregateFn;
      let arg: PathRef | '*';
      if (this.acceptPunct('*')) {
        if (fn !== 'COUNT') this.fail(`${fn}(*) is not allowed; name a path`, this.peek(-1));
        arg = '*';
      } else {
        arg = this.path(`inside ${fn}()`);
      }
      this.expectPunct(')', `to close ${fn}(`);
      item = { kind: 'aggregate', fn, arg, name: `${fn}(${arg === '*' ? '*' : arg.text})` };
    } else {
      const path = this.path('in the select list');
      item = { kind: 'column', path, name: path.text };
    }
    if (this.acceptKeyword('AS')) {
      const token = this.peek();
      item.name = this.name('after AS');
      // A row is a plain object: that key would set its prototype, not a column.
      if (item.name === '__proto__') this.fail("a column cannot be named '__proto__'", token);
    }
    return item;
  }

  private join(): Join {
    const collection = this.collectionName('after JOIN');
    this.expectKeyword('ON', `after JOIN ${collection}`);
    const left = this.path('after ON');
    const op = this.peek();
    if (op.kind !== 'op' || op.text !== '=')
      this.fail('expected = in the JOIN condition (joins are equalities)');
    this.index++;
    const right = this.path('after = in the JOIN condition');
    return { collection, left, right };
  }

  private orderItem(): OrderItem {
    const path = this.path('in ORDER BY');
    let descending = false;
    if (this.acceptKeyword('DESC')) descending = true;
    else this.acceptKeyword('ASC');
    return { path, descending };
  }

  private count(clause: string): Value {
    const token = this.peek();
    if (token.kind === 'param') return this.param();
    if (token.kind === 'number' && Number.isInteger(token.value) && (token.value as number) >= 0) {
      this.index++;
      return { kind: 'literal', value: token.value as number };
    }
    this.fail(`expected a non-negative integer after ${clause}`);
  }

  private insert(): InsertStatement {
    this.expectKeyword('INTO', 'after INSERT');
    const collection = this.collectionName('after INSERT INTO');
    this.expectKeyword('VALUES', `after INSERT INTO ${collection}`);
    const documents: Array<Literal | Param> = [];
    do {
      const token = this.peek();
      if (token.kind === 'param') documents.push(this.param());
      else if (token.kind === 'json') {
        this.index++;
        documents.push({ kind: 'literal', value: token.value as JsonValue });
      } else {
        this.fail('expected a JSON document ({…}), a JSON array of documents or ? after VALUES');
      }
    } while (this.acceptPunct(','));
    return { kind: 'insert', collection, documents };
  }

  private update(): UpdateStatement {
    const collection = this.collectionName('after UPDATE');
    this.expectKeyword('SET', `after UPDATE ${collection}`);
    const assignments: UpdateStatement['assignments'] = [];
    do {
      const path = this.path('in SET');
      // A SET target names the field it makes: not one to look for in the documents.
      if (this.quoted.at(-1) === path) this.quoted.pop();
      const eq = this.peek();
      if (eq.kind !== 'op' || eq.text !== '=') this.fail(`expected = after ${path.text} in SET`);
      this.index++;
      assignments.push({ path, value: this.value(`for ${path.text} in SET`) });
    } while (this.acceptPunct(','));
    const where = this.acceptKeyword('WHERE') ? this.condition() : undefined;
    return { kind: 'update', collection, assignments, where };
  }

  private delete(): DeleteStatement {
    this.expectKeyword('FROM', 'after DELETE');
    const collection = this.collectionName('after DELETE FROM');
    const where = this.acceptKeyword('WHERE') ? this.condition() : undefined;
    return { kind: 'delete', collection, where };
  }

  private createIndex(): CreateIndexStatement {
    const unique = this.acceptKeyword('UNIQUE');
    this.expectKeyword('INDEX', unique ? 'after CREATE UNIQUE' : 'after CREATE');
    const name = this.name('as the index name');
    this.expectKeyword('ON', `after the index name ${name}`);
    const collection = this.collectionName('after ON');
    this.expectPunct('(', 'before the indexed paths');
    const paths: string[] = [];
    do {
      const token = this.peek();
      if (token.kind !== 'ident') this.fail('expected a path to index');
      this.index++;
      try {
        paths.push(parsePath(token.text, { allowEach: true }).text);
      } catch (error) {
        throw syntaxError((error as DbError).message, token.at);
      }
    } while (this.acceptPunct(','));
    this.expectPunct(')', 'after the indexed paths');
    return { kind: 'createIndex', name, collection, paths, unique };
  }

  private dropIndex(): DropIndexStatement {
    this.expectKeyword('INDEX', 'after DROP');
    const name = this.name('as the index name');
    this.expectKeyword('ON', `after the index name ${name}`);
    const collection = this.collectionName('after ON');
    return { kind: 'dropIndex', name, collection };
  }

  // ---- conditions ----------------------------------------------------------------------

  private condition(): Condition {
    const parts = [this.conjunction()];
    while (this.acceptKeyword('OR')) parts.push(this.conjunction());
    return parts.length === 1 ? (parts[0] as Condition) : { kind: 'or', conditions: parts };
  }

  private conjunction(): Condition {
    const parts = [this.negation()];
    while (this.acceptKeyword('AND')) parts.push(this.negation());
    return parts.length === 1 ? (parts[0] as Condition) : { kind: 'and', conditions: parts };
  }

  /** Parentheses and NOT nest by recursion; the depth is bounded so no input overflows the stack. */
  private nest<T>(parse: () => T): T {
    if (++this.depth > SQL_NESTING_MAX) {
      this.fail(`conditions nest deeper than ${SQL_NESTING_MAX} levels of parentheses and NOT`);
    }
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private negation(): Condition {
    if (this.acceptKeyword('NOT')) {
      return this.nest(() => ({ kind: 'not', condition: this.negation() }));
    }
    if (this.acceptPunct('(')) {
      const inner = this.nest(() => this.condition());
      this.expectPunct(')', 'to close the parenthesis');
      return inner;
    }
    return this.predicate();
  }

  private predicate(): Condition {
    const leftToken = this.peek();
    const left = this.operand('at the start of a condition');
    const negated = this.acceptKeyword('NOT');
    if (this.acceptKeyword('LIKE') || this.acceptKeyword('ILIKE')) {
      const caseInsensitive = this.peek(-1).text.toUpperCase() === 'ILIKE';
      const path = this.requirePath(left, 'LIKE', leftToken);
      return { kind: 'like', path, pattern: this.value('after LIKE'), caseInsensitive, negated };
    }
    if (this.acceptKeyword('IN')) {
      const path = this.requirePath(left, 'IN', leftToken);
      const lowered = this.inList(path);
      return negated ? { kind: 'not', condition: lowered } : lowered;
    }
    if (negated) this.fail('expected LIKE, ILIKE or IN after NOT');
    if (this.acceptKeyword('IS')) {
      const path = this.requirePath(left, 'IS NULL', leftToken);
      const isNot = this.acceptKeyword('NOT');
      this.expectKeyword('NULL', isNot ? 'after IS NOT' : 'after IS');
      return { kind: 'isNull', path, negated: isNot };
    }
    const op = this.peek();
    if (op.kind !== 'op') {
      this.fail('expected a comparison (=, !=, <, <=, >, >=, LIKE, IN or IS NULL)');
    }
    this.index++;
    const right = this.operand(`after ${op.text}`);
    return { kind: 'compare', op: op.text as CompareOp, left, right };
  }

  /** `IN (v1, …, vN)` lowered to ORs of equalities, duplicates removed (rule 2). */
  private inList(path: PathRef): Condition {
    const open = this.peek();
    this.expectPunct('(', 'after IN');
    if (this.isPunct(')'))
      this.fail('IN needs at least one value; an empty list is not allowed', this.peek());
    const values: Value[] = [];
    const seen = new Set<string>();
    do {
      const value = this.value('in the IN list');
      const key = value.kind === 'literal' ? JSON.stringify(value.value) : `?${value.index}`;
      if (value.kind === 'literal' && typeof value.value === 'object' && value.value !== null) {
        this.fail('IN takes numbers, strings, booleans and null only', this.peek(-1));
      }
      if (!seen.has(key)) values.push(value);
      seen.add(key);
    } while (this.acceptPunct(','));
    this.expectPunct(')', `to close the IN list opened at ${open.at.line}:${open.at.column}`);
    const equalities: Condition[] = values.map((value) => ({
      kind: 'compare',
      op: '=',
      left: path,
      right: value,
    }));
    return equalities.length === 1
      ? (equalities[0] as Condition)
      : { kind: 'or', conditions: equalities };
  }

  private requirePath(operand: Operand, what: string, token: Token): PathRef {
    if (operand.kind !== 'path') this.fail(`${what} needs a field path on its left`, token);
    return operand;
  }

  // ---- leaves --------------------------------------------------------------------------

  private operand(context: string): Operand {
    const token = this.peek();
    if (token.kind === 'ident' && !this.isReserved(token)) return this.path(context);
    return this.value(context);
  }

  private isReserved(token: Token): boolean {
    return token.kind === 'ident' && !token.quoted && KEYWORDS.has(token.text.toUpperCase());
  }

  private value(context: string): Value {
    const token = this.peek();
    switch (token.kind) {
      case 'param':
        return this.param();
      case 'string':
      case 'number':
      case 'json':
        this.index++;
        return { kind: 'literal', value: token.value as JsonValue };
      case 'ident': {
        const word = token.quoted ? '' : token.text.toUpperCase();
        if (word === 'TRUE' || word === 'FALSE' || word === 'NULL') {
          this.index++;
          return { kind: 'literal', value: word === 'NULL' ? null : word === 'TRUE' };
        }
        break;
      }
      default:
        break;
    }
    this.fail(`expected a value ${context}`);
  }

  private param(): Param {
    const token = this.take();
    return { kind: 'param', index: this.params++, at: token.at };
  }

  private path(context: string): PathRef {
    const token = this.peek();
    if (token.kind !== 'ident' || this.isReserved(token)) {
      this.fail(`expected a field path ${context}`);
    }
    this.index++;
    try {
      parsePath(token.text);
    } catch (error) {
      throw syntaxError((error as DbError).message, token.at);
    }
    const ref: PathRef = { kind: 'path', text: token.text, at: token.at };
    if (token.quoted) this.quoted.push(ref);
    return ref;
  }

  /**
   * A collection name: an identifier without brackets, or one that starts with a digit
   * (`2024.logs`, `2024`), which the lexer gives as a name or a number.
   */
  private collectionName(context: string): string {
    const token = this.peek();
    const digitLed =
      token.kind === 'name' || (token.kind === 'number' && COLLECTION_CHARS.test(token.text));
    const named = token.kind === 'ident' && !this.isReserved(token) && !token.text.includes('[');
    if (!digitLed && !named) this.fail(`expected a collection name ${context}`);
    this.index++;
    return token.text;
  }

  private name(context: string): string {
    const token = this.peek();
    if (token.kind === 'string') {
      this.index++;
      return token.value as string;
    }
    if (token.kind !== 'ident' || this.isReserved(token)) this.fail(`expected a name ${context}`);
    this.index++;
    return token.text;
  }

  get paramCount(): number {
    return this.params;
  }
}

/** A parsed statement and the number of `?` placeholders it holds. */
export interface Parsed {
  statement: Statement;
  paramCount: number;
  /**
   * The paths the statement reads that were written in double quotes (`"status"`), in text
   * order. Double quotes make a field name, not a string, so `WHERE status = "pending"`
   * compares two fields; the engine warns when such a field is in no document.
   */
  quotedPaths: PathRef[];
}

/** Parses one SQL statement (an optional trailing `;` is allowed). */
export function parse(sql: string): Parsed {
  if (typeof sql !== 'string') {
    throw dbError('ERR_SQL_SYNTAX', 'notString');
  }
  const parser = new Parser(tokenize(sql));
  const statement = parser.statement();
  return { statement, paramCount: parser.paramCount, quotedPaths: parser.quoted };
}
