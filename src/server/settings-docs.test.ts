/**
 * Proves that the settings tables committed in README.md and docs/limits.md are exactly what
 * the settings table renders (run `npm run docs:settings` after changing a setting), and that
 * the rendering names every setting's flag, variable, config key and default.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES, settingSpec } from './settings.js';
import { GENERATED_BLOCKS, readBlock, renderReadmeTable, writeBlock } from './settings-docs.js';

function read(file: string): string {
  return readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
}

describe('generated settings tables', () => {
  for (const block of GENERATED_BLOCKS) {
    it(`${block.file}: the committed ${block.name} table is the rendered one`, () => {
      const committed = readBlock(read(block.file), block);
      expect(committed, `${block.file} has no markers for ${block.name}`).toBeDefined();
      expect(committed, 'run `npm run docs:settings`').toBe(block.render());
    });
  }

  it('gives every setting a README row with its flag, variable, config key and default', () => {
    const rows = renderReadmeTable().split('\n');
    for (const name of SETTING_NAMES) {
      const spec = settingSpec(name);
      const row = rows.find((line) => line.includes(`\`${spec.file}\``));
      expect(row, name).toBeDefined();
      if (spec.flag) expect(row).toContain(`\`${spec.flag}\``);
      if (spec.env) expect(row).toContain(`\`${spec.env}\``);
      expect(row).toContain(
        spec.defaultText ?? (spec.default === undefined ? 'none' : `\`${spec.default}\``),
      );
    }
  });

  it('rewrites only what is between the markers, and refuses a file without them', () => {
    const block = GENERATED_BLOCKS[0] as (typeof GENERATED_BLOCKS)[number];
    const committed = read(block.file);
    const stale = committed.replace(block.render(), '| stale |');
    expect(stale).not.toBe(committed);
    expect(writeBlock(stale, block)).toBe(committed);
    expect(() => writeBlock('no markers here', block)).toThrow(/markers/);
  });
});
