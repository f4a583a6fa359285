/**
 * Reads an import file: a JSON array of documents, or NDJSON (one document a line). Every
 * line that is not a JSON object is reported with its line number, and then nothing is
 * imported. Pure.
 */

export interface ParsedImport {
  docs: unknown[];
  /** The file's line of each document (1-based), to name lines in the node's errors. */
  lines: number[];
  errors: Array<{ line: number; error: string }>;
  format: 'json' | 'ndjson';
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseImport(text: string): ParsedImport {
  if (text.trimStart().startsWith('[')) return parseArray(text);
  const result: ParsedImport = { docs: [], lines: [], errors: [], format: 'ndjson' };
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    try {
      const doc = JSON.parse(line) as unknown;
      if (!isObject(doc)) throw new Error('a document is a JSON object ({ … })');
      result.docs.push(doc);
      result.lines.push(i + 1);
    } catch (error) {
      result.errors.push({ line: i + 1, error: (error as Error).message });
    }
  });
  return result;
}

function parseArray(text: string): ParsedImport {
  const result: ParsedImport = { docs: [], lines: [], errors: [], format: 'json' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    result.errors.push({ line: 1, error: `not a valid JSON array: ${(error as Error).message}` });
    return result;
  }
  (value as unknown[]).forEach((doc, i) => {
    // In a JSON array, "line" is the element's position (1-based): the file has no lines to name.
    if (isObject(doc)) {
      result.docs.push(doc);
      result.lines.push(i + 1);
    } else result.errors.push({ line: i + 1, error: 'a document is a JSON object ({ … })' });
  });
  return result;
}
