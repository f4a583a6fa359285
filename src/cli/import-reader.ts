/**
 * Reads an import file as a stream of records with their line numbers: NDJSON (one JSON
 * value per line) or one JSON array (told apart by the first character). A record that is
 * not valid JSON is reported with its line and reading goes on; a file whose structure is
 * broken (an array never closed, text after it) stops with ERR_IMPORT_INVALID naming the
 * line. Memory holds one record at a time. It parses with JSON.parse; it only finds where
 * each array element begins and ends.
 */

import { StringDecoder } from 'node:string_decoder';
import { dbError } from '../errors/index.js';

/** One record of an import file. */
export type ImportRecord = { line: number; value: unknown } | { line: number; error: string };

function parsed(line: number, text: string): ImportRecord {
  try {
    return { line, value: JSON.parse(text) };
  } catch (error) {
    return { line, error: `not valid JSON (${(error as Error).message})` };
  }
}

/** The records of `chunks` (a file's bytes), NDJSON or a JSON array. */
export async function* readRecords(
  chunks: AsyncIterable<Buffer | string>,
): AsyncGenerator<ImportRecord> {
  const decoder = new StringDecoder('utf8');
  const scanner = new Scanner();
  for await (const chunk of chunks) {
    yield* scanner.push(typeof chunk === 'string' ? chunk : decoder.write(chunk));
  }
  yield* scanner.push(decoder.end());
  yield* scanner.end();
}

/** Splits text into records as it arrives. */
class Scanner {
  private mode: 'unknown' | 'ndjson' | 'array' | 'closed' = 'unknown';
  private text = '';
  /** The line of `text[0]`. */
  private line = 1;
  // Array mode: where the scan stands inside the current element.
  private pos = 0;
  private scanLine = 1;
  private started = false;
  private elementStart = -1;
  private elementLine = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;

  *push(text: string): Generator<ImportRecord> {
    this.text += text;
    if (this.mode === 'unknown') {
      const first = this.text.search(/\S/);
      if (first < 0) return;
      this.mode = this.text[first] === '[' ? 'array' : 'ndjson';
    }
    if (this.mode === 'ndjson') yield* this.lines(false);
    else yield* this.elements();
  }

  *end(): Generator<ImportRecord> {
    if (this.mode === 'ndjson') yield* this.lines(true);
    if (this.mode === 'array') {
      throw dbError(
        'ERR_IMPORT_INVALID',
        'arrayNotClosed',
        { line: this.scanLine },
        { line: this.scanLine },
      );
    }
  }

  private *lines(atEnd: boolean): Generator<ImportRecord> {
    let from = 0;
    for (;;) {
      const at = this.text.indexOf('\n', from);
      if (at < 0) break;
      const row = this.text.slice(from, at);
      if (row.trim() !== '') yield parsed(this.line, row);
      this.line++;
      from = at + 1;
    }
    this.text = this.text.slice(from);
    if (atEnd && this.text.trim() !== '') yield parsed(this.line, this.text);
  }

  private *elements(): Generator<ImportRecord> {
    const text = this.text;
    let i = this.pos;
    for (; i < text.length; i++) {
      const c = text[i] as string;
      if (c === '\n') this.scanLine++;
      if (this.mode === 'closed') {
        if (!/\s/.test(c))
          throw dbError(
            'ERR_IMPORT_INVALID',
            'textAfterArray',
            { line: this.scanLine },
            { line: this.scanLine },
          );
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') this.inString = false;
        continue;
      }
      if (!this.started) {
        if (c === '[') this.started = true;
        else if (!/\s/.test(c))
          throw dbError(
            'ERR_IMPORT_INVALID',
            'notArray',
            { line: this.scanLine },
            { line: this.scanLine },
          );
        continue;
      }
      if (this.depth === 0 && (c === ',' || c === ']')) {
        if (this.elementStart >= 0) {
          yield parsed(this.elementLine, text.slice(this.elementStart, i));
          this.elementStart = -1;
        } else if (c === ',') {
          throw dbError(
            'ERR_IMPORT_INVALID',
            'missingElement',
            { line: this.scanLine },
            { line: this.scanLine },
          );
        }
        if (c === ']') this.mode = 'closed';
        continue;
      }
      if (this.elementStart < 0) {
        if (/\s/.test(c)) continue;
        this.elementStart = i;
        this.elementLine = this.scanLine;
      }
      if (c === '"') this.inString = true;
      else if (c === '{' || c === '[') this.depth++;
      else if (c === '}' || c === ']') this.depth--;
    }
    // Keep only the element under way, so memory holds one record.
    const keep = this.elementStart >= 0 ? this.elementStart : i;
    this.text = text.slice(keep);
    if (this.elementStart >= 0) this.elementStart = 0;
    this.pos = i - keep;
  }
}
