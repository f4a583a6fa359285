/**
 * Proves that `docdb serve` takes its options from the settings table: one option per
 * setting with a flag, stored under the key the resolver reads, its help naming the default
 * and the variable, and no help text that points users at a document they do not have.
 */

import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { defaultText, flagKey, SETTING_NAMES, settingSpec } from '../server/index.js';
import { declareCommands } from './commands.js';

function serveCommand(): Command {
  const program = new Command('docdb');
  declareCommands(program);
  return program.commands.find((command) => command.name() === 'serve') as Command;
}

describe('serve options', () => {
  it('has one option per setting with a flag, under the key the resolver reads', () => {
    const options = serveCommand().options;
    const flagged = SETTING_NAMES.map(settingSpec).filter((spec) => spec.flag);
    expect(options.map((option) => option.flags)).toEqual([
      '--config <file>',
      ...flagged.map((spec) => spec.flag),
    ]);
    for (const spec of flagged) {
      const option = options.find((o) => o.flags === spec.flag);
      expect(option?.attributeName(), spec.flag).toBe(flagKey(spec));
      // Commander must not fill values in: the file ranks above variables and defaults.
      expect(option?.defaultValue, spec.flag).toBeUndefined();
      expect(option?.envVar, spec.flag).toBeUndefined();
    }
  });

  it('shows each default and variable in the help', () => {
    const help = serveCommand().helpInformation({ error: false }).replace(/\s+/g, ' ');
    for (const spec of SETTING_NAMES.map(settingSpec)) {
      if (!spec.flag) continue;
      const fallback = defaultText(spec);
      if (fallback !== undefined) expect(help).toContain(`default ${fallback}`);
      if (spec.env) expect(help).toContain(`env ${spec.env}`);
    }
  });

  it('never refers users to the spec', () => {
    const help = serveCommand().helpInformation({ error: false });
    expect(help).not.toMatch(/\bspec\b|§/i);
  });
});
