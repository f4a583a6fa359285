/**
 * A structural walk of an LMDB file with plain file reads, before LMDB reads any of it: every
 * page of every tree is within the file, says it is the page it is, has sane bounds, and each
 * node's key and value (or its overflow pages, sub-page or sub-tree) lie inside it. LMDB keeps
 * no checksums and trusts these fields: a flipped size makes it copy past the map and the
 * process dies with SIGSEGV. `docdb verify` walks first and leaves a tree that fails here to
 * this report, so it never hands LMDB a page that would crash it, and every open walks first
 * (open-check.ts). Never writes.
 *
 * The layout is that of the LMDB inside lmdb-js 3: a 24-byte page header (page number,
 * transaction id, pad, flags, lower, upper; lower and upper counted from the header's end,
 * node offsets too) and 48-byte tree records. The head of the file is read by file-header.ts.
 */

import * as fs from 'node:fs';
import { readFileHeader } from './file-header.js';

const P_BRANCH = 0x01;
const P_LEAF = 0x02;
const P_OVERFLOW = 0x04;
const P_LEAF2 = 0x20;
const P_SUBP = 0x40;
const F_BIGDATA = 0x01;
const F_SUBDATA = 0x02;
const F_DUPDATA = 0x04;
const NODE_HEADER_BYTES = 8;
const TREE_RECORD_BYTES = 48;
/** The page header of the LMDB in lmdb-js 3 (the walk refuses another layout). */
const PAGE_HEADER_BYTES = 24;
/**
 * Where a meta page's two tree records (the free tree's, then the main tree's) begin: past its
 * header, magic, version, map address and map size.
 */
const META_TREES_AT = PAGE_HEADER_BYTES + 24;
/** Deeper than any B+tree of a file LMDB can address: a cycle or a damaged branch. */
const TREE_DEPTH_MAX = 64;

/** One structural fault: the tree it is in and what is wrong. */
export interface PageFault {
  /** The named tree ("c1", "i4", "catalog", "changes"), or "" for the main or free tree. */
  tree: string;
  message: string;
}

/** What the walk found: faults by tree, and the trees it could not walk at all. */
export interface PageWalk {
  faults: PageFault[];
  /** Named trees with a fault: their pages must not be read through LMDB. */
  damagedTrees: Set<string>;
  /** True when the main tree (the list of named trees) or the free tree is damaged. */
  mainDamaged: boolean;
  pagesWalked: number;
}

/** A record of a tree: its root page and entry count. */
interface TreeRecord {
  root: number;
  entries: number;
}

function treeRecord(bytes: Buffer, at: number): TreeRecord {
  return {
    entries: Number(bytes.readBigUInt64LE(at + 32)),
    root: Number(bytes.readBigUInt64LE(at + 40)),
  };
}

/** Pages cut out of the file on demand. */
class PageReader {
  private readonly fd: number;

  constructor(
    file: string,
    readonly pageSize: number,
    readonly pageCount: number,
  ) {
    this.fd = fs.openSync(file, 'r');
  }

  read(pgno: number, pages = 1): Buffer {
    // Pages read lie inside the file (its size was checked against the meta pages): the read
    // fills the buffer, so it is not zeroed first (a short read's rest is).
    const buffer = Buffer.allocUnsafeSlow(this.pageSize * pages);
    const read = fs.readSync(this.fd, buffer, 0, buffer.length, pgno * this.pageSize);
    buffer.fill(0, read);
    return buffer;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

class Walker {
  readonly faults: PageFault[] = [];
  private readonly seen = new Set<number>();
  private tree = '';
  private failedHere = false;
  pagesWalked = 0;

  /**
   * `plainValues`: hand `leaf` every plain value (those on overflow pages read from them), not
   * only the records of named trees.
   */
  constructor(
    private readonly pages: PageReader,
    private readonly plainValues = false,
  ) {}

  private fault(message: string): void {
    this.failedHere = true;
    this.faults.push({ tree: this.tree, message });
  }

  /** Walks one tree from its root; false when it has a fault. Calls `leaf` per leaf node. */
  walkTree(name: string, record: TreeRecord, leaf?: (key: Buffer, value: Buffer) => void): boolean {
    this.tree = name;
    this.failedHere = false;
    // An empty tree has no root (LMDB's P_INVALID, all ones).
    if (record.entries === 0 && record.root >= this.pages.pageCount) return true;
    const counted = this.walkPage(record.root, 0, leaf);
    if (!this.failedHere && counted !== record.entries) {
      this.fault(`tree ${name || '(main)'} records ${record.entries} entries but holds ${counted}`);
    }
    return !this.failedHere;
  }

  /** Entries under a page (dup values counted one by one), or 0 after a fault. */
  private walkPage(
    pgno: number,
    depth: number,
    leaf: ((key: Buffer, value: Buffer) => void) | undefined,
  ): number {
    if (depth > TREE_DEPTH_MAX)
      return this.stop(`tree deeper than ${TREE_DEPTH_MAX} at page ${pgno}`);
    if (!Number.isSafeInteger(pgno) || pgno < 2 || pgno >= this.pages.pageCount) {
      return this.stop(`page number ${pgno} is outside the file (${this.pages.pageCount} pages)`);
    }
    if (this.seen.has(pgno)) return this.stop(`page ${pgno} is reached twice`);
    this.seen.add(pgno);
    this.pagesWalked++;
    const page = this.pages.read(pgno);
    if (Number(page.readBigUInt64LE(0)) !== pgno) {
      return this.stop(`page ${pgno} says it is page ${page.readBigUInt64LE(0)}`);
    }
    const flags = page.readUInt16LE(18);
    const nodes = this.nodes(page, 0, page.length, `page ${pgno}`);
    if (!nodes) return 0;
    if ((flags & (P_BRANCH | P_LEAF)) === P_BRANCH) {
      let entries = 0;
      for (const at of nodes) {
        const child =
          page.readUInt16LE(at) +
          page.readUInt16LE(at + 2) * 0x10000 +
          page.readUInt16LE(at + 4) * 2 ** 32;
        const keyEnd = at + NODE_HEADER_BYTES + page.readUInt16LE(at + 6);
        if (keyEnd > page.length)
          return this.stop(`a branch node of page ${pgno} runs past the page`);
        entries += this.walkPage(child, depth + 1, leaf);
        if (this.failedHere) return 0;
      }
      return entries;
    }
    if ((flags & (P_BRANCH | P_LEAF | P_LEAF2)) !== P_LEAF) {
      return this.stop(`page ${pgno} has flags ${flags.toString(16)}, not a branch or leaf page`);
    }
    let entries = 0;
    for (const at of nodes) {
      entries += this.leafNode(page, at, `page ${pgno}`, depth, leaf);
      if (this.failedHere) return 0;
    }
    return entries;
  }

  private stop(message: string): number {
    this.fault(message);
    return 0;
  }

  /** Offsets of the nodes of a page (or sub-page) in [start, end), or undefined after a fault. */
  private nodes(page: Buffer, start: number, end: number, where: string): number[] | undefined {
    const lower = page.readUInt16LE(start + 20);
    const upper = page.readUInt16LE(start + 22);
    const body = end - start - PAGE_HEADER_BYTES;
    if (lower % 2 !== 0 || lower > upper || upper > body) {
      this.fault(`${where} has bounds lower ${lower}, upper ${upper} outside its ${body} bytes`);
      return undefined;
    }
    const offsets: number[] = [];
    for (let i = 0; i < lower / 2; i++) {
      const ptr = page.readUInt16LE(start + PAGE_HEADER_BYTES + 2 * i);
      if (ptr < upper || ptr + NODE_HEADER_BYTES > body) {
        this.fault(`${where} has node ${i} at ${ptr}, outside its used space`);
        return undefined;
      }
      offsets.push(start + PAGE_HEADER_BYTES + ptr);
    }
    return offsets;
  }

  /** Checks one leaf node; returns its entries (its dup values for a dupsort tree). */
  private leafNode(
    page: Buffer,
    at: number,
    where: string,
    depth: number,
    leaf: ((key: Buffer, value: Buffer) => void) | undefined,
  ): number {
    const size = page.readUInt16LE(at) + page.readUInt16LE(at + 2) * 0x10000;
    const flags = page.readUInt16LE(at + 4);
    const keyBytes = page.readUInt16LE(at + 6);
    const valueAt = at + NODE_HEADER_BYTES + keyBytes;
    if (flags & F_BIGDATA) {
      if (valueAt + 8 > page.length) return this.stop(`a node of ${where} runs past the page`);
      const first = Number(page.readBigUInt64LE(valueAt));
      this.overflow(first, size, where);
      if (this.failedHere) return 0;
      if (this.plainValues && leaf) {
        const pages = Math.ceil((size + PAGE_HEADER_BYTES) / this.pages.pageSize);
        const bytes = this.pages.read(first, pages);
        leaf(
          Buffer.from(page.subarray(at + NODE_HEADER_BYTES, valueAt)),
          bytes.subarray(PAGE_HEADER_BYTES, PAGE_HEADER_BYTES + size),
        );
      }
      return 1;
    }
    if (valueAt + size > page.length) {
      return this.stop(`a node of ${where} holds ${size} bytes, past the page's end`);
    }
    const value = page.subarray(valueAt, valueAt + size);
    if (flags & F_SUBDATA) {
      if (size !== TREE_RECORD_BYTES)
        return this.stop(`a tree record of ${where} is ${size} bytes`);
      if (flags & F_DUPDATA) {
        // A key's many values as a tree of their own: its pages belong to this tree's walk.
        const record = treeRecord(value, 0);
        const entries = this.walkPage(record.root, depth + 1, undefined);
        if (!this.failedHere && entries !== record.entries) {
          return this.stop(
            `a value tree of ${where} records ${record.entries} values but holds ${entries}`,
          );
        }
        return entries;
      }
      leaf?.(Buffer.from(page.subarray(at + NODE_HEADER_BYTES, valueAt)), Buffer.from(value));
      return 1;
    }
    if (flags & F_DUPDATA) {
      // A key's few values as a sub-page inside the node.
      if (size < PAGE_HEADER_BYTES) return this.stop(`a sub-page of ${where} is ${size} bytes`);
      const subFlags = page.readUInt16LE(valueAt + 18);
      if ((subFlags & P_SUBP) === 0)
        return this.stop(`a sub-page of ${where} has flags ${subFlags.toString(16)}`);
      if (subFlags & P_LEAF2) return 1;
      const nodes = this.nodes(page, valueAt, valueAt + size, `a sub-page of ${where}`);
      if (!nodes) return 0;
      for (const node of nodes) {
        const end = node + NODE_HEADER_BYTES + page.readUInt16LE(node + 6);
        if (end > valueAt + size)
          return this.stop(`a value in a sub-page of ${where} runs past it`);
      }
      return nodes.length;
    }
    if (this.plainValues)
      leaf?.(Buffer.from(page.subarray(at + NODE_HEADER_BYTES, valueAt)), value);
    return 1;
  }

  /** Checks a value's overflow pages. */
  private overflow(pgno: number, size: number, where: string): void {
    const pageSize = this.pages.pageSize;
    const needed = Math.ceil((size + PAGE_HEADER_BYTES) / pageSize);
    if (!Number.isSafeInteger(pgno) || pgno < 2 || pgno + needed > this.pages.pageCount) {
      this.fault(`a value of ${size} bytes in ${where} lies on pages ${pgno}… outside the file`);
      return;
    }
    const head = this.pages.read(pgno);
    const count = head.readUInt32LE(20);
    if (Number(head.readBigUInt64LE(0)) !== pgno || (head.readUInt16LE(18) & P_OVERFLOW) === 0) {
      this.fault(`overflow page ${pgno} of ${where} is not an overflow page`);
      return;
    }
    if (count < needed) {
      this.fault(
        `a value of ${size} bytes in ${where} has ${count} overflow pages, needs ${needed}`,
      );
      return;
    }
    if (this.seen.has(pgno)) {
      this.fault(`overflow page ${pgno} is reached twice`);
      return;
    }
    this.seen.add(pgno);
    this.pagesWalked += count;
  }
}

/**
 * Walks every tree of `file` (which opens: its head was checked). A named tree with a fault is
 * listed in `damagedTrees`; when the main tree itself is damaged nothing below it is known.
 */
export function walkPages(file: string): PageWalk {
  const header = readFileHeader(file);
  const meta = header.meta;
  const pageSize = meta?.pageSizeBytes ?? 0;
  const result: PageWalk = {
    faults: [],
    damagedTrees: new Set(),
    mainDamaged: false,
    pagesWalked: 0,
  };
  if (!meta || header.headerBytes !== PAGE_HEADER_BYTES) {
    result.mainDamaged = true;
    result.faults.push({
      tree: '',
      message: 'the meta pages are not in the layout this docdb reads',
    });
    return result;
  }
  const pages = new PageReader(file, pageSize, meta.lastPage + 1);
  try {
    const walker = new Walker(pages);
    const metaPage = pages.read(meta.pageNumber);
    walker.walkTree('(free)', treeRecord(metaPage, META_TREES_AT));
    const { named, mainOk } = namedTrees(walker, metaPage);
    result.mainDamaged = !mainOk || walker.faults.length > 0;
    for (const [name, record] of named) {
      if (!walker.walkTree(name, record)) result.damagedTrees.add(name);
    }
    result.faults = walker.faults;
    result.pagesWalked = walker.pagesWalked;
  } finally {
    pages.close();
  }
  return result;
}

/** Walks the main tree: the named trees' records, by name (those `wanted`, if given). */
function namedTrees(
  walker: Walker,
  metaPage: Buffer,
  wanted?: ReadonlySet<string>,
): { named: [string, TreeRecord][]; mainOk: boolean } {
  const named: [string, TreeRecord][] = [];
  const mainOk = walker.walkTree(
    '',
    treeRecord(metaPage, META_TREES_AT + TREE_RECORD_BYTES),
    (key, value) => {
      // Named trees' keys end in a NUL; the value is the tree's record.
      const name = key.toString('latin1').replace(/\0$/, '');
      if (!wanted || wanted.has(name)) named.push([name, treeRecord(value, 0)]);
    },
  );
  return { named, mainOk };
}

/**
 * The pages of the named trees `names` in the file's last committed state, each with its
 * overflow pages and the value trees of its keys with many values (which LMDB's statistics
 * leave out); a name the file has no tree of is left out. Undefined when a tree does not walk.
 */
export function treePages(file: string, names: readonly string[]): Map<string, number> | undefined {
  return readCommitted(file, false, (walker, metaPage) => {
    const { named, mainOk } = namedTrees(walker, metaPage, new Set(names));
    if (!mainOk) return undefined;
    const counts = new Map<string, number>();
    for (const [name, record] of named) {
      const before = walker.pagesWalked;
      if (!walker.walkTree(name, record)) return undefined;
      counts.set(name, walker.pagesWalked - before);
    }
    return counts;
  });
}

/**
 * Reads the file's last committed state with a walker (`plainValues`: see Walker). Undefined
 * when its meta pages are not in the layout this docdb reads, `read` answers none, a read
 * throws, or the walk met a fault.
 */
function readCommitted<T>(
  file: string,
  plainValues: boolean,
  read: (walker: Walker, metaPage: Buffer) => T | undefined,
): T | undefined {
  const header = readFileHeader(file);
  const meta = header.meta;
  if (!meta || header.headerBytes !== PAGE_HEADER_BYTES) return undefined;
  const pages = new PageReader(file, meta.pageSizeBytes, meta.lastPage + 1);
  try {
    const walker = new Walker(pages, plainValues);
    const answer = read(walker, pages.read(meta.pageNumber));
    return walker.faults.length > 0 ? undefined : answer;
  } catch {
    return undefined;
  } finally {
    pages.close();
  }
}

/** LMDB's free list in a file's last committed state. */
export interface FreeList {
  /** Every page on it. */
  pages: number;
  /**
   * Those of its newest record: the pages the last commit freed, which LMDB gives to no
   * transaction before the next commit (mdb_page_alloc takes only records older than it).
   */
  lastFreed: number;
}

/**
 * The pages on LMDB's free list in the file's last committed state: the free tree's lists,
 * read from the file (each a count, then page numbers, where lmdb-js writes a run of pages as
 * its negated length before its first page), keyed by the transaction that freed them.
 * Undefined when the free tree cannot be read as this layout (a damaged file, or a commit that
 * rewrote it meanwhile).
 */
export function freeListPages(file: string): FreeList | undefined {
  return readCommitted(file, true, (walker, metaPage) => {
    const free: FreeList = { pages: 0, lastFreed: 0 };
    let newestTxn = -1n;
    let readable = true;
    walker.walkTree('(free)', treeRecord(metaPage, META_TREES_AT), (key, list) => {
      const count = listedPages(list);
      if (count === undefined || key.length !== 8) {
        readable = false;
        return;
      }
      free.pages += count;
      const txn = key.readBigUInt64LE(0);
      if (txn > newestTxn) {
        newestTxn = txn;
        free.lastFreed = count;
      }
    });
    return readable ? free : undefined;
  });
}

/** The pages one free-list record names, or undefined when it is not a list. */
function listedPages(list: Buffer): number | undefined {
  const words = Math.floor(list.length / 8);
  if (words === 0) return undefined;
  const length = Number(list.readBigUInt64LE(0));
  if (length > words - 1) return undefined;
  let pages = 0;
  for (let i = 1; i <= length; i++) {
    const entry = list.readBigInt64LE(i * 8);
    if (entry > 0n) pages++;
    else if (entry < 0n) {
      pages += Number(-entry);
      i++;
    }
  }
  return pages;
}
