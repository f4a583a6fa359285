/**
 * Writes a stored document's JSON text straight from its MessagePack bytes, never building the
 * JavaScript object: what a served read answers is `JSON.stringify({ _id, ...document })`,
 * byte for byte, or that of a projection of it (`SELECT a, b.c AS x`). It reads the forms
 * DocumentCodec writes for JSON (shared records, maps, arrays, strings, integers, doubles,
 * booleans, null); on anything else, or where JSON.stringify would order keys otherwise than
 * they are stored (keys that look like array positions, `__proto__`), it gives up and the
 * caller decodes the whole document. It must not change what is stored.
 */

import { ID_BYTES, type JsonPath } from '../../util/index.js';
import { GIVE_UP, MsgpackCursor, type Structure } from './msgpack-cursor.js';

/** One output field of a projection: its name and the path of its value in the document. */
export interface JsonColumn {
  name: string;
  path: JsonPath;
}

/**
 * A projection the transcoder applies on the way: `_id` first when `keepId`, then one key per
 * column in order, a missing value as null. `project` is the same projection of a decoded
 * document (the executor's own, which the transcoder must equal), used where the transcoder
 * gives up. Column names that JSON.stringify would not write in this order (a repeated name,
 * one that looks like an array position, `__proto__`) make it `handled: false`: decoded.
 */
export class JsonProjection {
  readonly handled: boolean;
  /** Each column's `"name":` as UTF-8. */
  readonly keys: readonly Uint8Array[];
  /** True when every column name is ASCII. */
  readonly asciiKeys: boolean;

  constructor(
    readonly keepId: boolean,
    readonly columns: readonly JsonColumn[],
    readonly project: (document: Record<string, unknown>) => unknown,
  ) {
    const names = new Set<string>(keepId ? ['_id'] : []);
    let handled = true;
    for (const { name } of columns) {
      if (names.has(name) || !plainKey(name)) handled = false;
      names.add(name);
    }
    this.handled = handled;
    this.asciiKeys = columns.every((c) => asciiText(c.name));
    this.keys = columns.map((c) => Buffer.from(`${JSON.stringify(c.name)}:`, 'utf8'));
  }
}

/**
 * True when JSON.stringify writes an object's key where it was inserted: not an array
 * position (those go first, in numeric order; any key starting with a digit is treated as
 * one, which only costs a decode) and not `__proto__` (msgpackr reads it as `__proto_`).
 */
function plainKey(key: string): boolean {
  const first = key.charCodeAt(0);
  return !(first >= 0x30 && first <= 0x39) && key !== '__proto__';
}

/** The UTF-8 bytes of a text. */
function utf8(text: string): Uint8Array {
  return Buffer.from(text, 'utf8');
}

/**
 * What a record writes before each of its values, as UTF-8: `,"key":` for every key (a
 * document's root follows its `_id`), and the record's own opening `{"key0":` (an empty
 * record's is `{`).
 */
interface RecordKeys {
  comma: Uint8Array[];
  open: Uint8Array;
  /** True when every key is ASCII (the output may then stay latin1). */
  ascii: boolean;
  /** True when a key is `_id`: `{ _id, ...body }` would not write the root as stored. */
  hasId: boolean;
}

/** The record keys of one structure, or null when one key is not a plain key. */
function recordKeysOf(structure: Structure): RecordKeys | null {
  for (const key of structure) if (!plainKey(key)) return null;
  const first = structure[0];
  return {
    comma: structure.map((key) => utf8(`,${JSON.stringify(key)}:`)),
    open: utf8(first === undefined ? '{' : `{${JSON.stringify(first)}:`),
    ascii: structure.every(asciiText),
    hasId: structure.includes('_id'),
  };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
/** The short escapes JSON.stringify writes for control characters (else `\u00XX`). */
const SHORT_ESCAPES: Record<number, number> = { 8: 0x62, 9: 0x74, 10: 0x6e, 12: 0x66, 13: 0x72 };
const HEX = utf8('0123456789abcdef');
const ID_KEY = utf8('{"_id":');
/** A UUID's JSON text: 32 hex digits, 4 dashes and the quotes. */
const ID_TEXT_BYTES = 38;
const NULL = utf8('null');
const TRUE = utf8('true');
const FALSE = utf8('false');
/** Per byte: 0 copied as it is, 1 escaped, 2 a possible surrogate's lead (0xED). */
const STRING_BYTE = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STRING_BYTE[c] = 1;
STRING_BYTE[QUOTE] = 1;
STRING_BYTE[BACKSLASH] = 1;
STRING_BYTE[0xed] = 2;

/** True when every character of the text is ASCII. */
function asciiText(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** True when JSON.stringify writes the text in quotes as it is (a UUID's text is). */
function plainText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === QUOTE || c === BACKSLASH || c >= 0x80) return false;
  }
  return true;
}

/** The decimal digits of a non-negative integer below 2^32. */
function digitCount(n: number): number {
  if (n < 100000) return n < 100 ? (n < 10 ? 1 : 2) : n < 1000 ? 3 : n < 10000 ? 4 : 5;
  if (n < 10000000) return n < 1000000 ? 6 : 7;
  return n < 100000000 ? 8 : n < 1000000000 ? 9 : 10;
}

/** Output room the writer starts with; it doubles when a document needs more. */
const OUTPUT_START_BYTES = 16 * 1024;

/**
 * A double is written from integers when it has at most this many decimal places (prices,
 * rates) and its magnitude is below SHORT_DECIMAL_MAX; others go through `String()`.
 */
const SHORT_DECIMAL_PLACES = 4;
const SHORT_DECIMAL_SCALE = 10 ** SHORT_DECIMAL_PLACES;
const SHORT_DECIMAL_MAX = 1e9;

/**
 * Lines of JSON text being gathered (NDJSON): `bytes[0, length)` holds whole lines. The
 * transcoder may replace `bytes` with a larger buffer holding the same lines.
 */
export interface JsonLineBuffer {
  bytes: Buffer;
  length: number;
}

/**
 * Transcodes documents written with one list of shared structures. Not re-entrant: one
 * document at a time (reads are synchronous). The JSON is written as UTF-8 bytes into one
 * reused buffer (ASCII and UTF-8 strings are copied byte by byte, escaped where JSON needs
 * it) and read out as one string at the end: no string is made per value.
 */
export class JsonTranscoder extends MsgpackCursor {
  /** Per structure id: what its records write before their values, null to give up on. */
  private keys: (RecordKeys | null | undefined)[] = [];
  private keysFor: readonly Structure[] | undefined;
  /** Where the JSON is written: the transcoder's own buffer, or a caller's lines. */
  private out: Buffer = Buffer.allocUnsafe(OUTPUT_START_BYTES);
  /** True while every output byte is ASCII. */
  private ascii8 = true;
  private length = 0;
  /** The document's `_id`: as JSON text, or (when set) as its 16 stored bytes. */
  private idJson = '';
  private idBytes: Uint8Array | undefined;

  /**
   * `structures` are the file's shared structures; `decodeWhole` decodes one complete value
   * (the strings that hold a byte sequence only msgpackr itself reads exactly).
   */
  constructor(
    structures: () => readonly Structure[],
    private readonly decodeWhole: (bytes: Uint8Array) => unknown,
  ) {
    super(structures);
  }

  /**
   * `JSON.stringify({ _id: id, ...document })` of the document in `bytes[0, size)`, or of its
   * projection; undefined when the bytes hold a form this transcoder does not write (decode
   * the whole document instead). `bytes` may be a view only valid during the call.
   */
  document(
    bytes: Uint8Array,
    size: number,
    id: string,
    projection?: JsonProjection,
  ): string | undefined {
    if (projection && !projection.handled) return undefined;
    this.length = 0;
    this.ascii8 = true;
    this.idJson = plainText(id) ? `"${id}"` : JSON.stringify(id);
    this.idBytes = undefined;
    if (!this.transcode(bytes, size, projection)) return undefined;
    // ASCII (the usual case) reads out without UTF-8 decoding.
    return this.out.toString(this.ascii8 ? 'latin1' : 'utf8', 0, this.length);
  }

  /**
   * Appends to `lines` the JSON text `document` writes (the id given as its 16 stored bytes)
   * and a newline; false, leaving the lines as they were, where `document` would answer
   * undefined (or the id is not 16 bytes). Written in place: no string is made per document.
   */
  line(
    lines: JsonLineBuffer,
    bytes: Uint8Array,
    size: number,
    id: Uint8Array,
    projection?: JsonProjection,
  ): boolean {
    if ((projection && !projection.handled) || id.length !== ID_BYTES) return false;
    const own = this.out;
    this.out = lines.bytes;
    this.length = lines.length;
    this.idBytes = id;
    try {
      if (!this.transcode(bytes, size, projection)) return false;
      this.put(0x0a);
      lines.length = this.length;
      return true;
    } finally {
      // A buffer grown on the way holds the lines too.
      lines.bytes = this.out;
      this.out = own;
    }
  }

  /** Writes the document at `this.out[length…]`; false when it gives up. */
  private transcode(bytes: Uint8Array, size: number, projection?: JsonProjection): boolean {
    this.start(bytes, size);
    if (this.keysFor !== this.list) {
      this.keys = [];
      this.keysFor = this.list;
    }
    try {
      if (projection) this.projected(projection);
      else this.root();
      return true;
    } catch (error) {
      if (error === GIVE_UP) return false;
      throw error;
    }
  }

  /** The document's `_id` as JSON text (a UUID's, from the stored bytes when given so). */
  private writeId(): void {
    const id = this.idBytes;
    if (id === undefined) {
      this.text(this.idJson);
      return;
    }
    this.room(ID_TEXT_BYTES);
    const out = this.out;
    let at = this.length;
    out[at++] = QUOTE;
    for (let i = 0; i < ID_BYTES; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) out[at++] = 0x2d;
      const b = id[i] as number;
      out[at++] = HEX[b >> 4] as number;
      out[at++] = HEX[b & 15] as number;
    }
    out[at++] = QUOTE;
    this.length = at;
  }

  /** The whole document, `_id` first. */
  private root(): void {
    this.copy(ID_KEY);
    this.writeId();
    const token = this.byte();
    if (token >= 0x40 && token < 0x80) {
      const { comma, hasId } = this.recordKeys(token);
      // `{ _id, ...body }`: a stored `_id` would take the first key's value (never stored).
      if (hasId) throw GIVE_UP;
      for (let i = 0; i < comma.length; i++) {
        this.copy(comma[i] as Uint8Array);
        this.value();
      }
    } else {
      const count = this.mapCount(token);
      for (let i = 0; i < count; i++) {
        this.put(COMMA);
        const keyStart = this.length;
        this.mapKey();
        if (this.out.toString('latin1', keyStart, this.length) === '"_id":') throw GIVE_UP;
        this.value();
      }
    }
    if (this.pos !== this.end) throw GIVE_UP;
    this.put(0x7d);
  }

  /** The projection: each column's value found from the start of the document. */
  private projected(projection: JsonProjection): void {
    // `{ _id, ...body }`: a stored `_id` would be the one read (never stored: give up).
    if (this.enterField('_id')) throw GIVE_UP;
    this.put(0x7b);
    let first = true;
    if (projection.keepId) {
      this.copy(ID_KEY.subarray(1));
      this.writeId();
      first = false;
    }
    const { columns, keys } = projection;
    if (!projection.asciiKeys) this.ascii8 = false;
    for (let c = 0; c < columns.length; c++) {
      if (!first) this.put(COMMA);
      first = false;
      this.copy(keys[c] as Uint8Array);
      this.valueAtPath((columns[c] as JsonColumn).path);
    }
    this.put(0x7d);
  }

  /** Writes the value at `path` (valueAt's rules), `null` where it is missing. */
  private valueAtPath(path: JsonPath): void {
    const { segments } = path;
    const head = segments[0];
    if (head?.kind === 'field' && head.name === '_id') {
      if (segments.length === 1) this.writeId();
      else this.copy(NULL);
      return;
    }
    this.pos = 0;
    for (const segment of segments) {
      const found =
        segment.kind === 'field'
          ? this.enterField(segment.name)
          : segment.kind === 'index' && this.enterPosition(segment.index);
      if (!found) {
        this.copy(NULL);
        return;
      }
    }
    this.value();
  }

  /** Moves to the value of field `name` of the object at `pos`; false when it has none. */
  private enterField(name: string): boolean {
    const token = this.byte();
    if (token >= 0x40 && token < 0x80) {
      const structure = this.recordStructure(token);
      // valueAt reads the object msgpackr builds: `__proto__` stored is `__proto_` read.
      if (structure.includes('__proto__')) throw GIVE_UP;
      for (let i = 0; i < structure.length; i++) {
        if (structure[i] === name) return true;
        this.skip();
      }
      return false;
    }
    if ((token & 0xf0) !== 0x80 && token !== 0xde && token !== 0xdf) return this.notThere(token);
    const count = this.mapCount(token);
    const wanted = `${JSON.stringify(name)}:`;
    const mark = this.length;
    for (let i = 0; i < count; i++) {
      this.mapKey();
      const key = this.out.toString('utf8', mark, this.length);
      this.length = mark;
      if (key === wanted) return true;
      this.skip();
    }
    return false;
  }

  /** Moves to element `index` of the array at `pos`; false when there is none. */
  private enterPosition(index: number): boolean {
    const token = this.byte();
    let count: number;
    if ((token & 0xf0) === 0x90) count = token & 0x0f;
    else if (token === 0xdc) count = this.uint(2);
    else if (token === 0xdd) count = this.uint(4);
    else return this.notThere(token);
    if (index >= count) return false;
    for (let i = 0; i < index; i++) this.skip();
    return true;
  }

  /**
   * False for a value a path cannot enter (a scalar, or an array for a field); a form this
   * transcoder does not read gives up, as it may be an object after all.
   */
  private notThere(token: number): false {
    const known =
      token < 0x40 ||
      (token >= 0x90 && token < 0xc1) ||
      token === 0xc2 ||
      token === 0xc3 ||
      (token >= 0xca && token <= 0xd3) ||
      (token >= 0xd9 && token <= 0xdd) ||
      token >= 0xe0;
    if (!known) throw GIVE_UP;
    return false;
  }

  /** Writes the value at `pos`. */
  private value(): void {
    const token = this.byte();
    if (token < 0x40) this.integer(token);
    else if (token < 0x80) this.record(token);
    else if (token < 0x90) this.map(token & 0x0f);
    else if (token < 0xa0) this.array(token & 0x0f);
    else if (token < 0xc0) this.string(token & 0x1f, this.pos - 1);
    else if (token >= 0xe0) this.integer(token - 0x100);
    else this.longValue(token);
  }

  /** Writes a value whose token is 0xc0 to 0xdf. */
  private longValue(token: number): void {
    switch (token) {
      case 0xc0:
        this.copy(NULL);
        return;
      case 0xc2:
        this.copy(FALSE);
        return;
      case 0xc3:
        this.copy(TRUE);
        return;
      case 0xca:
        this.number(this.view.getFloat32(this.at(4)));
        return;
      case 0xcb:
        this.number(this.view.getFloat64(this.at(8)));
        return;
      case 0xcc:
      case 0xcd:
      case 0xce:
        this.integer(this.uint(1 << (token - 0xcc)));
        return;
      case 0xcf: {
        // msgpackr's own arithmetic for a 64-bit integer read as a number (int64AsType).
        const at = this.at(8);
        this.number(this.view.getUint32(at) * 0x100000000 + this.view.getUint32(at + 4));
        return;
      }
      case 0xd0:
        this.integer(this.view.getInt8(this.at(1)));
        return;
      case 0xd1:
        this.integer(this.view.getInt16(this.at(2)));
        return;
      case 0xd2:
        this.integer(this.view.getInt32(this.at(4)));
        return;
      case 0xd3: {
        const at = this.at(8);
        this.number(this.view.getInt32(at) * 0x100000000 + this.view.getUint32(at + 4));
        return;
      }
      case 0xd9:
      case 0xda:
      case 0xdb: {
        const tokenStart = this.pos - 1;
        this.string(this.uint(1 << (token - 0xd9)), tokenStart);
        return;
      }
      case 0xdc:
        this.array(this.uint(2));
        return;
      case 0xdd:
        this.array(this.uint(4));
        return;
      case 0xde:
        this.map(this.uint(2));
        return;
      case 0xdf:
        this.map(this.uint(4));
        return;
      default:
        throw GIVE_UP;
    }
  }

  /** A double as JSON.stringify writes it (NaN and the infinities as null). */
  private number(value: number): void {
    if (value === (value | 0)) {
      this.integer(value | 0);
      return;
    }
    if (!Number.isFinite(value)) {
      this.copy(NULL);
      return;
    }
    if (value > -SHORT_DECIMAL_MAX && value < SHORT_DECIMAL_MAX && this.shortDecimal(value)) {
      return;
    }
    this.ascii(String(value));
  }

  /**
   * Writes a double that is not an integer and has at most SHORT_DECIMAL_PLACES decimal
   * places as `String()` does, from integers (`String()` of a double costs more than the
   * rest of a small document's value); false, writing nothing, for any other. Why it equals
   * `String()`: when `scaled / 10^4 === value`, the decimal scaled·10^-4 reads back as
   * `value`, and below 1e9 doubles lie closer together than 10^-4, so no decimal with as few
   * or fewer significant digits reads back as `value`: it is the shortest, which is what
   * `String()` writes (in plain notation, as `value` is at least 10^-4).
   */
  private shortDecimal(value: number): boolean {
    const scaled = Math.round(value * SHORT_DECIMAL_SCALE);
    if (scaled / SHORT_DECIMAL_SCALE !== value) return false;
    const magnitude = scaled < 0 ? -scaled : scaled;
    // Both below 2^31: integer arithmetic from here on (a double's `%` is a slow call).
    const whole = Math.floor(magnitude / SHORT_DECIMAL_SCALE);
    let fraction = (magnitude - whole * SHORT_DECIMAL_SCALE) | 0;
    // Not reached for a non-integer below 1e9; it keeps the loop below finite.
    if (fraction === 0) return false;
    let places = SHORT_DECIMAL_PLACES;
    while (fraction % 10 === 0) {
      fraction = (fraction / 10) | 0;
      places--;
    }
    if (scaled < 0) this.put(0x2d);
    this.integer(whole);
    this.room(places + 1);
    const out = this.out;
    out[this.length] = 0x2e;
    for (let at = this.length + places; at > this.length; at--) {
      const next = (fraction / 10) | 0;
      out[at] = 0x30 + (fraction - next * 10);
      fraction = next;
    }
    this.length += places + 1;
    return true;
  }

  /**
   * An integer's digits, for magnitudes below 2^32 (the 32-bit forms; -0 is written 0, as
   * JSON.stringify does).
   */
  private integer(value: number): void {
    this.room(11);
    const out = this.out;
    let n = value;
    if (n < 0) {
      out[this.length++] = 0x2d;
      n = -n;
    }
    if (n < 10) {
      out[this.length++] = 0x30 + n;
      return;
    }
    let at = this.length + digitCount(n);
    this.length = at;
    while (n >= 10) {
      const next = (n / 10) >>> 0;
      out[--at] = 0x30 + (n - next * 10);
      n = next;
    }
    out[--at] = 0x30 + n;
  }

  private record(token: number): void {
    const { open, comma } = this.recordKeys(token);
    this.copy(open);
    if (comma.length > 0) this.value();
    for (let i = 1; i < comma.length; i++) {
      this.copy(comma[i] as Uint8Array);
      this.value();
    }
    this.put(0x7d);
  }

  /** What the record whose token was just read writes before its values. */
  private recordKeys(token: number): RecordKeys {
    const id = this.recordId(token);
    let keys = this.keys[id];
    if (keys === undefined) {
      const structure = this.list[id];
      if (!structure) throw GIVE_UP;
      keys = recordKeysOf(structure);
      this.keys[id] = keys;
    }
    if (keys === null) throw GIVE_UP;
    if (!keys.ascii) this.ascii8 = false;
    return keys;
  }

  private map(count: number): void {
    this.put(0x7b);
    for (let i = 0; i < count; i++) {
      if (i > 0) this.put(COMMA);
      this.mapKey();
      this.value();
    }
    this.put(0x7d);
  }

  /** The entry count of a map token (giving up on anything else). */
  private mapCount(token: number): number {
    if ((token & 0xf0) === 0x80) return token & 0x0f;
    if (token === 0xde) return this.uint(2);
    if (token === 0xdf) return this.uint(4);
    throw GIVE_UP;
  }

  /** Writes a map key as `"key":` (string keys only, plain keys only). */
  private mapKey(): void {
    const token = this.byte();
    const start = this.length;
    if ((token & 0xe0) === 0xa0) this.string(token & 0x1f, this.pos - 1);
    else if (token >= 0xd9 && token <= 0xdb) {
      const tokenStart = this.pos - 1;
      this.string(this.uint(1 << (token - 0xd9)), tokenStart);
    } else throw GIVE_UP;
    const first = this.out[start + 1] as number;
    if (first >= 0x30 && first <= 0x39) throw GIVE_UP;
    if (
      this.length - start === 11 &&
      this.out.toString('latin1', start, this.length) === '"__proto__"'
    ) {
      throw GIVE_UP;
    }
    this.put(0x3a);
  }

  private array(count: number): void {
    this.put(0x5b);
    for (let i = 0; i < count; i++) {
      if (i > 0) this.put(COMMA);
      this.value();
    }
    this.put(0x5d);
  }

  /**
   * Writes a string of `length` bytes at `pos` (its token at `tokenStart`) as JSON. UTF-8 is
   * copied as it is, escaped where JSON.stringify escapes: every decoder reads valid UTF-8
   * alike. A 0xED byte may start a surrogate's form, which decoders read differently: that
   * string goes to msgpackr, whose reading is the one to match, and JSON.stringify.
   */
  private string(length: number, tokenStart: number): void {
    const start = this.pos;
    this.advance(length);
    const end = this.pos;
    this.room(length * 6 + 2);
    const b = this.bytes;
    const out = this.out;
    const opened = this.length;
    let at = opened;
    out[at++] = QUOTE;
    for (let i = start; i < end; i++) {
      const c = b[i] as number;
      const kind = STRING_BYTE[c] as number;
      if (kind === 0) {
        out[at++] = c;
        if (c >= 0x80) this.ascii8 = false;
        continue;
      }
      if (kind === 2) {
        this.length = opened;
        this.decodedString(tokenStart, end);
        return;
      }
      out[at++] = BACKSLASH;
      if (c >= 0x20) {
        out[at++] = c;
        continue;
      }
      const short = SHORT_ESCAPES[c];
      if (short !== undefined) {
        out[at++] = short;
        continue;
      }
      out[at++] = 0x75;
      out[at++] = 0x30;
      out[at++] = 0x30;
      out[at++] = HEX[c >> 4] as number;
      out[at++] = HEX[c & 15] as number;
    }
    out[at++] = QUOTE;
    this.length = at;
  }

  /** A string msgpackr decodes, written as JSON.stringify writes it. */
  private decodedString(tokenStart: number, end: number): void {
    const json = JSON.stringify(this.decodeWhole(this.bytes.subarray(tokenStart, end)));
    this.ascii8 = false;
    this.room(json.length * 3);
    this.length += this.out.write(json, this.length, 'utf8');
  }

  /** Makes room for `n` more output bytes. */
  private room(n: number): void {
    if (this.length + n <= this.out.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.length + n));
    this.out.copy(grown, 0, 0, this.length);
    this.out = grown;
  }

  private put(byte: number): void {
    if (this.length >= this.out.length) this.room(1);
    this.out[this.length++] = byte;
  }

  /** Writes bytes (keys and literals: short, so copied in a loop). */
  private copy(bytes: Uint8Array): void {
    this.room(bytes.length);
    const out = this.out;
    let at = this.length;
    for (let i = 0; i < bytes.length; i++) out[at++] = bytes[i] as number;
    this.length = at;
  }

  /** Writes a text as UTF-8 (an `_id`'s JSON: ASCII, copied in a loop, for a UUID). */
  private text(text: string): void {
    this.room(text.length * 3);
    const out = this.out;
    let at = this.length;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) {
        this.ascii8 = false;
        this.length += out.write(text, this.length, 'utf8');
        return;
      }
      out[at++] = c;
    }
    this.length = at;
  }

  /** Writes an ASCII text (a number's digits). */
  private ascii(text: string): void {
    this.room(text.length);
    const out = this.out;
    let at = this.length;
    for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
    this.length = at;
  }
}
