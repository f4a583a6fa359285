/**
 * `docdb repl <file>`: an interactive SQL console. A statement runs on Enter once it is
 * complete (it may span lines); `stats`, `collections`, `indexes <c>`, `help` and `exit` are
 * commands. History with the arrow keys on a terminal; piped stdin works line by line.
 */

import * as readline from 'node:readline';
import type { Database } from '../engine/index.js';
import { isDbError } from '../errors/index.js';
import { parse } from '../sql/index.js';
import { printStats } from './inspect.js';
import { explainSessionError, openSession, VIA_NODE } from './open-file.js';
import { printJson, reportError } from './output.js';
import { printResult } from './query.js';

const HELP = `Statements: SELECT, INSERT, UPDATE, DELETE, CREATE [UNIQUE] INDEX, DROP INDEX.
A one-line statement runs on Enter. One that spans lines runs at a trailing ;\nor an empty line. Commands:
  stats            storage facts of the file
  collections      list collections with their document counts
  indexes <name>   list the indexes of a collection
  help             this text
  exit             leave (also quit, Ctrl-D)`;

type Shape = 'complete' | 'incomplete' | 'invalid';

/** Whether a text parses, stops short (the parser ran out of input), or is wrong. */
function shape(text: string): Shape {
  try {
    parse(text);
    return 'complete';
  } catch (error) {
    const short =
      isDbError(error, 'ERR_SQL_SYNTAX') && error.message.includes('found end of input');
    return short ? 'incomplete' : 'invalid';
  }
}

/**
 * Splits input lines into statements. A complete single line runs on Enter. A statement
 * that spans lines runs at a trailing `;`, at an empty line, at the end of input, or as
 * soon as the next line cannot continue it (that line then starts afresh).
 */
export class StatementSplitter {
  private buffer = '';

  get pending(): boolean {
    return this.buffer !== '';
  }

  /** Feeds one line; returns the statements ready to run, in order. */
  push(line: string): string[] {
    if (this.buffer === '') {
      if (line.trim() === '') return [];
      const kind = shape(line);
      if (kind === 'incomplete' && !line.trim().endsWith(';')) {
        this.buffer = line;
        return [];
      }
      return [line];
    }
    if (line.trim() === '') return this.flush();
    const candidate = `${this.buffer}\n${line}`;
    const kind = shape(candidate);
    if (candidate.trim().endsWith(';')) {
      this.buffer = '';
      return [candidate];
    }
    if (kind !== 'invalid') {
      this.buffer = candidate;
      return [];
    }
    if (shape(this.buffer) === 'complete') {
      const ready = this.buffer;
      this.buffer = '';
      return [ready, ...this.push(line)];
    }
    this.buffer = '';
    return [candidate];
  }

  /** Whatever is buffered, as a statement to run (the parser reports it if unfinished). */
  flush(): string[] {
    const rest = this.buffer;
    this.buffer = '';
    return rest.trim() === '' ? [] : [rest];
  }
}

function runCommand(db: Database, line: string, json: boolean): boolean {
  const [word, arg] = line.trim().split(/\s+/, 2);
  switch (word?.toLowerCase()) {
    case 'help':
      process.stdout.write(`${HELP}\n`);
      return true;
    case 'stats':
      if (json) printJson(db.stats());
      else printStats(db.stats());
      return true;
    case 'collections': {
      const rows = db.collections().map((name) => ({ name, count: db.collection(name).count() }));
      if (json) printJson(rows);
      else
        process.stdout.write(
          `${rows.map((r) => `${r.name}  ${r.count}`).join('\n') || '(none)'}\n`,
        );
      return true;
    }
    case 'indexes': {
      if (!arg) {
        process.stdout.write('usage: indexes <collection>\n');
        return true;
      }
      const indexes = db.requireCollection(arg).listIndexes();
      if (json) printJson(indexes);
      else {
        const lines = indexes.map(
          (i) =>
            `${i.name} (${i.paths.join(', ')})${i.unique ? ' unique' : ''}${i.multikey ? ' multikey' : ''} ${i.state}`,
        );
        process.stdout.write(`${lines.join('\n') || '(no indexes)'}\n`);
      }
      return true;
    }
    default:
      return false;
  }
}

/** Runs `docdb repl` (declared in commands.ts). */
export async function runRepl(file: string, options: { json?: boolean }): Promise<void> {
  const session = await openSession(file, VIA_NODE.query());
  const { db } = session;
  const tty = process.stdin.isTTY === true;
  const rl = readline.createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: tty,
    historySize: 1000,
    prompt: 'docdb> ',
  });
  if (tty) {
    process.stdout.write(`docdb repl on ${db.file} — type help for commands\n`);
    rl.prompt();
  }
  const splitter = new StatementSplitter();
  const run = async (sql: string) => {
    try {
      const result = await db.query(sql);
      if (options.json) printJson(result);
      else printResult(result);
    } catch (error) {
      // An error ends that statement, not the session; piped input still exits 1.
      reportError(explainSessionError(session, error));
      process.exitCode = tty ? 0 : 1;
    }
  };
  try {
    for await (const line of rl) {
      if (!splitter.pending) {
        const word = line.trim().toLowerCase();
        if (word === 'exit' || word === 'quit') break;
        try {
          if (word !== '' && runCommand(db, line, options.json === true)) {
            if (tty) rl.prompt();
            continue;
          }
        } catch (error) {
          reportError(error);
          process.exitCode = tty ? 0 : 1;
          if (tty) rl.prompt();
          continue;
        }
      }
      for (const sql of splitter.push(line)) await run(sql);
      if (tty) {
        rl.setPrompt(splitter.pending ? '   ...> ' : 'docdb> ');
        rl.prompt();
      }
    }
    for (const sql of splitter.flush()) await run(sql);
  } finally {
    rl.close();
    await db.close();
  }
}
