/**
 * Decodes only the parts of a stored document that a query reads. A scan that filters on two
 * fields of a 500-byte order need not build the rest of it: the reader walks the MessagePack
 * bytes, skips what no path reaches (strings by their length, without making them) and builds
 * a sparse copy holding exactly the values at the selected paths.
 *
 * The sparse copy answers `valueAt` for every selected path exactly as the whole document
 * would. The reader understands the forms DocumentCodec writes for JSON (shared one-byte
 * records, maps, arrays, strings, integers, doubles, booleans, null); on anything else it
 * gives up and the caller decodes the whole document.
 */

import type { JsonPath } from '../../util/index.js';
import { GIVE_UP, MsgpackCursor, type Structure } from './msgpack-cursor.js';

export type { Structure };

/** One step of a selection: the whole value, or some of its fields and array positions. */
interface SelectionNode {
  whole: boolean;
  fields: Map<string, SelectionNode>;
  positions: Map<number, SelectionNode>;
  /** Per shared structure id: the node of each record value (undefined: skip it). */
  plans: ((SelectionNode | undefined)[] | undefined)[];
  /** The structure list `plans` were made for (a rollback may reuse an id). */
  plansFor: readonly Structure[] | undefined;
}

function node(): SelectionNode {
  return { whole: false, fields: new Map(), positions: new Map(), plans: [], plansFor: undefined };
}

/** The paths a query reads, as a tree. A path ending at a value (or at `[*]`) takes it whole. */
export class FieldSelection {
  readonly root: SelectionNode = node();
  /** The distinct paths selected. */
  readonly paths: readonly JsonPath[];
  /** The same text for the same set of paths, in any order. */
  readonly signature: string;

  constructor(paths: readonly JsonPath[]) {
    const byText = new Map(paths.map((p) => [p.text, p]));
    this.paths = [...byText.values()];
    this.signature = [...byText.keys()].sort().join('\n');
    for (const path of this.paths) {
      let at = this.root;
      for (const segment of path.segments) {
        if (at.whole) break;
        if (segment.kind === 'each') {
          at.whole = true;
          break;
        }
        const children = segment.kind === 'field' ? at.fields : at.positions;
        const key = segment.kind === 'field' ? segment.name : segment.index;
        let next = (children as Map<string | number, SelectionNode>).get(key);
        if (!next) {
          next = node();
          (children as Map<string | number, SelectionNode>).set(key, next);
        }
        at = next;
      }
      at.whole = true;
    }
  }
}

/** msgpackr stores a `__proto__` key as `__proto_`; the whole decoder does the same. */
function safeKey(key: string): string {
  return key === '__proto__' ? '__proto_' : key;
}

/**
 * Reads selections out of documents written with one list of shared structures. Not
 * re-entrant: one read at a time (reads are synchronous).
 */
export class PartialReader extends MsgpackCursor {
  /**
   * `structures` are the file's shared structures; `decodeWhole` decodes one complete value
   * (a sub-range of a document) for selections that take a container whole.
   */
  constructor(
    structures: () => readonly Structure[],
    private readonly decodeWhole: (bytes: Uint8Array) => unknown,
  ) {
    super(structures);
  }

  /**
   * The selected parts of the document in `bytes[0, size)`, or undefined when the bytes
   * hold a form this reader does not handle (decode the whole document instead).
   */
  read(
    bytes: Uint8Array,
    size: number,
    selection: FieldSelection,
  ): Record<string, unknown> | undefined {
    this.start(bytes, size);
    try {
      const root = selection.root;
      if (!root.whole && root.fields.size === 0 && root.positions.size === 0) return {};
      const value = this.readSelected(root, true);
      return value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : undefined;
    } catch (error) {
      if (error === GIVE_UP) return undefined;
      throw error;
    }
  }

  /** The selected parts of the value at `pos`. `top`: stop once every field is found. */
  private readSelected(at: SelectionNode, top = false): unknown {
    if (at.whole) return this.readWhole();
    const token = this.byte();
    if (token >= 0x40 && token < 0x80) return this.readRecord(at, this.recordId(token), top);
    if ((token & 0xf0) === 0x80) return this.readMap(at, token & 0x0f);
    if (token === 0xde) return this.readMap(at, this.uint(2));
    if (token === 0xdf) return this.readMap(at, this.uint(4));
    if ((token & 0xf0) === 0x90) return this.readArray(at, token & 0x0f);
    if (token === 0xdc) return this.readArray(at, this.uint(2));
    if (token === 0xdd) return this.readArray(at, this.uint(4));
    // A scalar where the selection goes deeper: every deeper path is missing, whatever it is.
    this.pos--;
    this.skip();
    return null;
  }

  private plan(at: SelectionNode, id: number): (SelectionNode | undefined)[] {
    if (at.plansFor !== this.list) {
      at.plans = [];
      at.plansFor = this.list;
    }
    let plan = at.plans[id];
    if (!plan) {
      const structure = this.list[id];
      if (!structure) throw GIVE_UP;
      plan = structure.map((key) => at.fields.get(safeKey(key)));
      at.plans[id] = plan;
    }
    return plan;
  }

  private readRecord(at: SelectionNode, id: number, top: boolean): Record<string, unknown> {
    const plan = this.plan(at, id);
    const keys = this.list[id] as Structure;
    const out: Record<string, unknown> = {};
    let wanted = at.fields.size;
    for (let i = 0; i < plan.length; i++) {
      const child = plan[i];
      if (child === undefined) {
        this.skip();
        continue;
      }
      out[safeKey(keys[i] as string)] = this.readSelected(child);
      if (--wanted === 0 && top) return out;
    }
    return out;
  }

  private readMap(at: SelectionNode, count: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) {
      const key = this.readValue();
      if (typeof key !== 'string') throw GIVE_UP;
      const child = at.fields.get(safeKey(key));
      if (child === undefined) this.skip();
      else out[safeKey(key)] = this.readSelected(child);
    }
    return out;
  }

  private readArray(at: SelectionNode, count: number): unknown[] {
    const out: unknown[] = [];
    for (let i = 0; i < count; i++) {
      const child = at.positions.get(i);
      if (child === undefined) this.skip();
      else out[i] = this.readSelected(child);
    }
    return out;
  }

  /** The whole value at `pos`: scalars here, containers through the whole decoder. */
  private readWhole(): unknown {
    const token = this.bytes[this.pos] as number;
    const container =
      (token >= 0x40 && token < 0x80) ||
      (token & 0xe0) === 0x80 ||
      (token >= 0xdc && token <= 0xdf);
    if (!container) return this.readValue();
    const start = this.pos;
    this.skip();
    return this.decodeWhole(this.bytes.subarray(start, this.pos));
  }

  /** Reads one scalar (containers give up: readWhole sends them to the whole decoder). */
  private readValue(): unknown {
    const token = this.byte();
    if (token < 0x40) return token;
    if (token >= 0xe0) return token - 0x100;
    if ((token & 0xe0) === 0xa0) return this.text(token & 0x1f, this.pos - 1);
    switch (token) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xcb: {
        const value = this.view.getFloat64(this.bytes.byteOffset + this.pos);
        this.advance(8);
        return value;
      }
      case 0xcc:
      case 0xcd:
      case 0xce:
        return this.uint(1 << (token - 0xcc));
      case 0xd0: {
        const value = this.view.getInt8(this.bytes.byteOffset + this.pos);
        this.advance(1);
        return value;
      }
      case 0xd1: {
        const value = this.view.getInt16(this.bytes.byteOffset + this.pos);
        this.advance(2);
        return value;
      }
      case 0xd2: {
        const value = this.view.getInt32(this.bytes.byteOffset + this.pos);
        this.advance(4);
        return value;
      }
      case 0xd9:
      case 0xda:
      case 0xdb: {
        const tokenStart = this.pos - 1;
        return this.text(this.uint(1 << (token - 0xd9)), tokenStart);
      }
      default:
        throw GIVE_UP;
    }
  }

  /**
   * A string of `length` bytes that starts at `pos`; its token starts at `tokenStart`. Short
   * ASCII strings are built here; others go to the whole decoder, which reads every UTF-8
   * form (lone surrogates included) exactly as it wrote them.
   */
  private text(length: number, tokenStart: number): string {
    const start = this.pos;
    this.advance(length);
    const b = this.bytes;
    if (length < 32) {
      let out = '';
      for (let i = start; i < start + length; i++) {
        const c = b[i] as number;
        if (c >= 0x80) return this.decodeWhole(b.subarray(tokenStart, this.pos)) as string;
        out += String.fromCharCode(c);
      }
      return out;
    }
    return this.decodeWhole(b.subarray(tokenStart, this.pos)) as string;
  }
}
