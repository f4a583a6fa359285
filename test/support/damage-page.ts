/**
 * Damages a data file the way a flipped bit on disk does, where LMDB would crash on it: the
 * first node of the first leaf page holding plain documents (a 16-byte id key, no flags) gets
 * a size running far past its page. Used by the page walk and open check tests.
 */

import * as fs from 'node:fs';

/** Damages `file` in place; false when no such node was found. */
export function damageDocumentNode(file: string): boolean {
  const bytes = fs.readFileSync(file);
  const pageSize = bytes.readUInt32LE(48);
  for (let page = 2 * pageSize; page < bytes.length; page += pageSize) {
    const flags = bytes.readUInt16LE(page + 18);
    const lower = bytes.readUInt16LE(page + 20);
    if (flags !== 0x02 || lower === 0) continue;
    const node = page + 24 + bytes.readUInt16LE(page + 24);
    if (bytes.readUInt16LE(node + 6) !== 16 || bytes.readUInt16LE(node + 4) !== 0) continue;
    // An index's ids are keys without data (its duplicates' tree); a document has data.
    if (bytes.readUInt16LE(node) === 0 && bytes.readUInt16LE(node + 2) === 0) continue;
    bytes.writeUInt16LE(0x7fff, node + 2);
    fs.writeFileSync(file, bytes);
    return true;
  }
  return false;
}
