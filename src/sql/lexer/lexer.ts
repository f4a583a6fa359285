/**
 * The SQL lexer: text → tokens with line and column. Identifiers take dots, hyphens and
 * bracket steps (`eu-west.orders`, `passengers[0].lastName`, `a[*].b`) because the dialect has
 * no arithmetic; `{` or `[` at the start of a token begins a JSON literal. A number run on
 * into name characters (`2024.logs`) is a `name` token: a collection name where the parser
 * expects one, and the malformed number it also is anywhere else. Pure.
 */

import { type DbError, dbError } from '../../errors/index.js';
import type { JsonValue, Position } from '../ast/index.js';

export type TokenKind =
  | 'ident'
  | 'name'
  | 'string'
  | 'number'
  | 'json'
  | 'param'
  | 'op'
  | 'punct'
  | 'eof';

export interface Token {
  kind: TokenKind;
  /** The text as written (for errors) or, for identifiers, the path text. */
  text: string;
  /** Parsed value of string, number and json tokens. */
  value?: JsonValue;
  /** True when an identifier was written (partly) in double quotes: never a keyword. */
  quoted?: boolean;
  /** A `name` token's error wherever a collection name is not expected. */
  error?: DbError;
  at: Position;
}

/** A syntax error at a position: ERR_SQL_SYNTAX with line and column in its details. */
export function syntaxError(message: string, at: Position): DbError {
  return dbError(
    'ERR_SQL_SYNTAX',
    'at',
    { problem: message, line: at.line, column: at.column },
    {
      line: at.line,
      column: at.column,
    },
  );
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_.\-$]/;
const DIGIT = /[0-9]/;
/** What may follow a number to make it a `name` (collection names: letters, digits, . _ -). */
const NAME_PART = /[A-Za-z0-9_.\-$]/;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/;

export class Lexer {
  private pos = 0;
  private line = 1;
  private column = 1;

  constructor(private readonly text: string) {}

  private here(): Position {
    return { line: this.line, column: this.column };
  }

  private advance(count: number): void {
    for (let i = 0; i < count; i++) {
      if (this.text[this.pos] === '\n') {
        this.line++;
        this.column = 1;
      } else {
        this.column++;
      }
      this.pos++;
    }
  }

  private skipSpaceAndComments(): void {
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined) return;
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
        this.advance(1);
      } else if (ch === '-' && this.text[this.pos + 1] === '-') {
        while (this.pos < this.text.length && this.text[this.pos] !== '\n') this.advance(1);
      } else {
        return;
      }
    }
  }

  /** Reads every token; the last one is `eof`. */
  tokenize(): Token[] {
    const tokens: Token[] = [];
    for (;;) {
      const token = this.next();
      tokens.push(token);
      if (token.kind === 'eof') return tokens;
    }
  }

  private next(): Token {
    this.skipSpaceAndComments();
    const at = this.here();
    const ch = this.text[this.pos];
    if (ch === undefined) return { kind: 'eof', text: 'end of input', at };
    if (IDENT_START.test(ch) || ch === '"') return this.identifier(at);
    if (DIGIT.test(ch) || (ch === '-' && DIGIT.test(this.text[this.pos + 1] ?? ''))) {
      return this.number(at);
    }
    if (ch === "'") return this.string(at);
    if (ch === '{' || ch === '[') return this.json(at);
    if (ch === '?') {
      this.advance(1);
      return { kind: 'param', text: '?', at };
    }
    const two = this.text.slice(this.pos, this.pos + 2);
    if (two === '!=' || two === '<>' || two === '<=' || two === '>=') {
      this.advance(2);
      return { kind: 'op', text: two === '<>' ? '!=' : two, at };
    }
    if (ch === '=' || ch === '<' || ch === '>') {
      this.advance(1);
      return { kind: 'op', text: ch, at };
    }
    if (ch === '(' || ch === ')' || ch === ',' || ch === ';' || ch === '*') {
      this.advance(1);
      return { kind: 'punct', text: ch, at };
    }
    throw dbError(
      'ERR_SQL_SYNTAX',
      'unexpectedCharacter',
      { ch, line: at.line, column: at.column },
      { line: at.line, column: at.column },
    );
  }

  private identifier(at: Position): Token {
    let text = '';
    let quoted = false;
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === '"') {
        quoted = true;
        text += this.quotedPart();
      } else if (ch !== undefined && IDENT_PART.test(ch)) {
        text += ch;
        this.advance(1);
      } else if (ch === '[') {
        const close = this.text.indexOf(']', this.pos);
        if (close < 0)
          throw dbError(
            'ERR_SQL_SYNTAX',
            'neverClosed',
            { line: this.here().line, column: this.here().column },
            { line: this.here().line, column: this.here().column },
          );
        text += this.text.slice(this.pos, close + 1);
        this.advance(close + 1 - this.pos);
      } else {
        break;
      }
    }
    return { kind: 'ident', text, quoted, at };
  }

  private quotedPart(): string {
    const start = this.here();
    this.advance(1);
    let out = '';
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined)
        throw dbError(
          'ERR_SQL_SYNTAX',
          'unterminatedQuoted',
          { line: start.line, column: start.column },
          { line: start.line, column: start.column },
        );
      if (ch === '"') {
        if (this.text[this.pos + 1] === '"') {
          out += '"';
          this.advance(2);
          continue;
        }
        this.advance(1);
        return out;
      }
      out += ch;
      this.advance(1);
    }
  }

  /** True when a name character is at `pos` (a `--` comment ends a name). */
  private namePartAt(pos: number): boolean {
    const ch = this.text[pos];
    if (ch === undefined || !NAME_PART.test(ch)) return false;
    return !(ch === '-' && this.text[pos + 1] === '-');
  }

  private number(at: Position): Token {
    const match = NUMBER.exec(this.text.slice(this.pos));
    const text = (match as RegExpExecArray)[0];
    const end = this.pos + text.length;
    if (this.namePartAt(end)) {
      const error = dbError(
        'ERR_SQL_SYNTAX',
        'malformedNumber',
        { text, next: this.text[end], line: at.line, column: at.column },
        { line: at.line, column: at.column },
      );
      let stop = end;
      while (this.namePartAt(stop)) stop++;
      const name = this.text.slice(this.pos, stop);
      this.advance(name.length);
      return { kind: 'name', text: name, at, error };
    }
    this.advance(text.length);
    return { kind: 'number', text, value: Number(text), at };
  }

  private string(at: Position): Token {
    this.advance(1);
    let value = '';
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined)
        throw dbError(
          'ERR_SQL_SYNTAX',
          'unterminatedString',
          { line: at.line, column: at.column },
          { line: at.line, column: at.column },
        );
      if (ch === "'") {
        if (this.text[this.pos + 1] === "'") {
          value += "'";
          this.advance(2);
          continue;
        }
        this.advance(1);
        return { kind: 'string', text: `'${value.replaceAll("'", "''")}'`, value, at };
      }
      value += ch;
      this.advance(1);
    }
  }

  /** A JSON object or array: find its end by balancing brackets outside JSON strings. */
  private json(at: Position): Token {
    let depth = 0;
    let i = this.pos;
    let inString = false;
    for (; i < this.text.length; i++) {
      const ch = this.text[i];
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') {
        inString = true;
      } else if (ch === '{' || ch === '[') {
        depth++;
      } else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) break;
      }
    }
    if (depth !== 0)
      throw dbError(
        'ERR_SQL_SYNTAX',
        'unterminatedJson',
        { line: at.line, column: at.column },
        { line: at.line, column: at.column },
      );
    const text = this.text.slice(this.pos, i + 1);
    let value: JsonValue;
    try {
      value = JSON.parse(text) as JsonValue;
    } catch (error) {
      throw dbError(
        'ERR_SQL_SYNTAX',
        'invalidJsonLiteral',
        { cause: (error as Error).message, line: at.line, column: at.column },
        { line: at.line, column: at.column },
      );
    }
    this.advance(text.length);
    return { kind: 'json', text: text.length > 40 ? `${text.slice(0, 40)}…` : text, value, at };
  }
}

/** Tokens of a SQL text. */
export function tokenize(text: string): Token[] {
  return new Lexer(text).tokenize();
}
