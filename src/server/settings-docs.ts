/**
 * The settings tables of the docs, rendered from the settings table (settings.ts): the full
 * table in README.md and the defaults and accepted values in docs/limits.md. Each sits
 * between two markers; `npm run docs:settings` rewrites what is between them, and a test
 * fails when the committed text differs from what this module renders. Pure: it renders and
 * replaces text, the script reads and writes the files.
 */

import {
  CONFIG_FLAG,
  describeKind,
  flagName,
  SETTING_NAMES,
  type SettingSpec,
  settingSpec,
} from './settings.js';

/** One generated block: the file it lives in (from the repository root) and its content. */
export interface GeneratedBlock {
  name: string;
  file: string;
  render(): string;
}

const NONE = '—';

function code(text: string): string {
  return `\`${text}\``;
}

/** Text inside a table cell: a `|` would end the cell, a `<key>` would read as HTML. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('<', '&lt;');
}

function defaultCell(spec: SettingSpec): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  return spec.default === undefined ? 'none' : code(String(spec.default));
}

function fileCell(spec: SettingSpec): string {
  return spec.fileRequired ? `${code(spec.file)} (required)` : code(spec.file);
}

/** README's table: every way to give each setting, its default and what it does. */
export function renderReadmeTable(): string {
  const rows = [
    '| Flag | Variable | Config file | Default | Meaning |',
    '|---|---|---|---|---|',
    `| ${code(CONFIG_FLAG.flag)} | ${NONE} | ${NONE} | none | ${cell(CONFIG_FLAG.help)} |`,
  ];
  for (const spec of SETTING_NAMES.map(settingSpec)) {
    const flag = spec.flag === undefined ? NONE : code(spec.flag);
    const env = spec.env === undefined ? NONE : code(spec.env);
    rows.push(
      `| ${flag} | ${env} | ${fileCell(spec)} | ${defaultCell(spec)} | ${cell(spec.help)} |`,
    );
  }
  return rows.join('\n');
}

/** docs/limits.md's table: each setting's default and the values it accepts. */
export function renderLimitsTable(): string {
  const rows = ['| Setting | Flag | Default | Accepted values |', '|---|---|---|---|'];
  for (const spec of SETTING_NAMES.map(settingSpec)) {
    const flag = flagName(spec);
    rows.push(
      `| ${code(spec.file)} | ${flag === undefined ? NONE : code(flag)} | ${defaultCell(spec)} | ${cell(describeKind(spec.kind))} |`,
    );
  }
  return rows.join('\n');
}

/** Every generated block of the docs. */
export const GENERATED_BLOCKS: readonly GeneratedBlock[] = [
  { name: 'serve settings', file: 'README.md', render: renderReadmeTable },
  { name: 'serve settings', file: 'docs/limits.md', render: renderLimitsTable },
];

function markers(block: GeneratedBlock): { begin: string; end: string } {
  return {
    begin: `<!-- generated: ${block.name} (npm run docs:settings rewrites it; edit src/server/settings.ts) -->`,
    end: `<!-- end of generated: ${block.name} -->`,
  };
}

/** The block's current content in `text` (between its markers), or undefined without them. */
export function readBlock(text: string, block: GeneratedBlock): string | undefined {
  const { begin, end } = markers(block);
  const start = text.indexOf(begin);
  const stop = text.indexOf(end, start);
  if (start < 0 || stop < 0) return undefined;
  return text.slice(start + begin.length, stop).trim();
}

/** `text` with the block's content rendered afresh between its markers. */
export function writeBlock(text: string, block: GeneratedBlock): string {
  const { begin, end } = markers(block);
  const start = text.indexOf(begin);
  const stop = text.indexOf(end, start);
  if (start < 0 || stop < 0) {
    throw new Error(`${block.file} has no markers for ${block.name}: add\n${begin}\n${end}`);
  }
  return `${text.slice(0, start + begin.length)}\n${block.render()}\n${text.slice(stop)}`;
}
