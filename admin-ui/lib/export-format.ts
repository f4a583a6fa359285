/** A result's documents as JSON, NDJSON or CSV text, for export. Pure. */

import { columnPaths, showValue, valueAt } from './paths';

export type ExportFormat = 'json' | 'ndjson' | 'csv';

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function formatDocuments(
  docs: ReadonlyArray<Record<string, unknown>>,
  format: ExportFormat,
): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(docs, null, 2)}\n`;
    case 'ndjson':
      return docs.map((doc) => `${JSON.stringify(doc)}\n`).join('');
    case 'csv': {
      const columns = columnPaths(docs);
      const lines = [columns.map(csvField).join(',')];
      for (const doc of docs)
        lines.push(columns.map((c) => csvField(showValue(valueAt(doc, c)))).join(','));
      return `${lines.join('\r\n')}\r\n`;
    }
  }
}

export const MIME: Record<ExportFormat, string> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv',
};
