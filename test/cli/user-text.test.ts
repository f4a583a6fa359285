/**
 * Proves that no text written for users points them at the spec, a document they do not
 * have: the help of every command, the reference docs and the README, and the OpenAPI
 * document a node serves. (docs/ARCHITECTURE.md and the ADRs are written for contributors.)
 * Also that their command lines take one form, `./bin/docdb …`, which runs in a checkout.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessPerTest } from '../support/app-harness.js';
import { runDocdb, runDocdbAsync } from '../support/run-docdb.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SPEC = /\bspec\b|§/i;
/** How many `docdb <command> --help` run at once. */
const HELPS_AT_ONCE = 4;

function docdb(...args: string[]): string {
  const { stdout, stderr } = runDocdb(args);
  return `${stdout}${stderr}`;
}

/** The lines of `text` that mention the spec, for a readable failure. */
function specLines(text: string): string[] {
  return text.split('\n').filter((line) => SPEC.test(line));
}

describe('user-facing text never refers to the spec', () => {
  it('in the help of docdb and of every command', async () => {
    const top = docdb('help');
    const commands = [...top.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1] as string);
    expect(commands).toContain('serve');
    expect(specLines(top)).toEqual([]);
    // A few at once: one after another, their Node start-ups took more than the test's 30 s
    // on a loaded machine.
    const helps = new Map<string, string>();
    const queue = [...commands];
    const runner = async () => {
      for (let command = queue.shift(); command !== undefined; command = queue.shift()) {
        const { stdout, stderr } = await runDocdbAsync([command, '--help']);
        helps.set(command, `${stdout}${stderr}`);
      }
    };
    await Promise.all(Array.from({ length: HELPS_AT_ONCE }, runner));
    for (const command of commands) {
      const help = helps.get(command) ?? '';
      expect(help, command).toContain('Usage:');
      expect(specLines(help), command).toEqual([]);
    }
  });

  it('in README.md and the reference docs', () => {
    const docs = fs
      .readdirSync(path.join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md') && name !== 'ARCHITECTURE.md')
      .map((name) => path.join('docs', name));
    for (const file of ['README.md', ...docs]) {
      expect(specLines(fs.readFileSync(path.join(ROOT, file), 'utf8')), file).toEqual([]);
    }
  });

  it('writes command lines one way in README.md and the reference docs: ./bin/docdb', () => {
    // A checkout has no `docdb` on the PATH until `npm link` (README, "The CLI"); install.md
    // alone shows the binary and npx forms, which are its subject.
    const docs = fs
      .readdirSync(path.join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md') && name !== 'install.md')
      .map((name) => path.join('docs', name));
    for (const file of ['README.md', ...docs]) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      // Lines of code blocks only: prose names the product ("docdb is …").
      const code = text.split('```').filter((_, i) => i % 2 === 1);
      const lines = code.flatMap((block) => block.split('\n'));
      const bare = lines.filter((line) => /^(\$ )?docdb [a-z]/.test(line));
      expect(bare, file).toEqual([]);
    }
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain('`npm link`');
  });

  const start = harnessPerTest();
  it('in the OpenAPI document', async () => {
    const app = await start();
    const answer = await app.request({ url: '/openapi.json' });
    expect(specLines(JSON.stringify(answer.body, null, 1))).toEqual([]);
  });
});
