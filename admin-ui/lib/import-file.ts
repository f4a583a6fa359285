/**
 * Reads an import file: a JSON array of documents, or NDJSON (one document a line). Every
 * line that is not a JSON object is reported with its line number, and then nothing is
 * imported. NDJSON is read a line at a time from the file's stream (`ndjsonLines`, so a
 * large file is never held whole); a JSON array is parsed whole (`parseImport`).
 */

/**
 * A JSON object read from the file: docdb/client's `Document`, spelled out here because the
 * root's tests import this module without the UI's path to the client.
 */
type Document = Record<string, unknown>;

export interface ParsedImport {
  docs: Document[];
  /** The file's line of each document (1-based), to name lines in the node's errors. */
  lines: number[];
  errors: Array<{ line: number; error: string }>;
  format: 'json' | 'ndjson';
}

export function isObject(value: unknown): value is Document {
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

/** The first non-blank character of a file, read from its head only. */
export async function firstCharacter(file: Blob): Promise<string> {
  for (let start = 0; start < file.size; start += 4096) {
    const head = (await file.slice(start, start + 4096).text()).trimStart();
    if (head) return head[0] as string;
  }
  return '';
}

/**
 * The non-blank lines of an NDJSON file with their numbers (1-based), read from the file's
 * stream a chunk at a time: memory holds one chunk and one line, whatever the file's size.
 */
export async function* ndjsonLines(file: Blob): AsyncGenerator<{ line: number; text: string }> {
  const reader = file.stream().pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  let line = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    rest += value;
    let start = 0;
    for (let end = rest.indexOf('\n'); end >= 0; end = rest.indexOf('\n', start)) {
      line++;
      const text = rest.slice(start, end);
      start = end + 1;
      if (text.trim()) yield { line, text };
    }
    rest = rest.slice(start);
  }
  if (rest.trim()) yield { line: line + 1, text: rest };
}

/** One NDJSON line as a document, or why it is not one. */
export function documentOf(text: string): { doc: Document } | { error: string } {
  try {
    const doc = JSON.parse(text) as unknown;
    return isObject(doc) ? { doc } : { error: 'a document is a JSON object ({ … })' };
  } catch (error) {
    return { error: (error as Error).message };
  }
}
