/**
 * `npm run docs:settings`: rewrites the settings tables of README.md and docs/limits.md from
 * the settings table (src/server/settings.ts), between their markers, and says which files
 * changed. src/server/settings-docs.test.ts fails while a committed table is out of date.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { GENERATED_BLOCKS, writeBlock } from '../src/server/settings-docs.js';

const ROOT = path.resolve(import.meta.dirname, '..');

for (const block of GENERATED_BLOCKS) {
  const file = path.join(ROOT, block.file);
  const before = fs.readFileSync(file, 'utf8');
  const after = writeBlock(before, block);
  if (after === before) {
    process.stdout.write(`${block.file}: ${block.name} up to date\n`);
  } else {
    fs.writeFileSync(file, after);
    process.stdout.write(`${block.file}: ${block.name} rewritten\n`);
  }
}
