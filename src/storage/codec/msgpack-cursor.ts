/**
 * A cursor over one stored document's MessagePack bytes, shared by the readers that walk
 * them without msgpackr (PartialReader, JsonTranscoder): reading tokens and lengths, record
 * ids, and skipping a value of any form DocumentCodec writes for JSON (shared records with
 * one- or two-byte ids, maps, arrays, strings, integers, doubles, booleans, null). On
 * anything else, or past the end, it throws GIVE_UP and the reader's caller decodes whole.
 */

/** The key list of one shared structure (a MessagePack record's field names, in order). */
export type Structure = string[];

/** Thrown inside a reader when the bytes hold a form it does not read. */
export const GIVE_UP = Symbol('the bytes hold a form this reader leaves to msgpackr');

/** The cursor: a reader starts it on a document, then walks from `pos`. Not re-entrant. */
export abstract class MsgpackCursor {
  protected bytes: Buffer = Buffer.alloc(0);
  protected view: DataView = new DataView(this.bytes.buffer);
  protected pos = 0;
  protected end = 0;
  protected list: readonly Structure[] = [];

  /** `structures` are the file's shared structures, read anew at each start. */
  constructor(protected readonly structures: () => readonly Structure[]) {}

  /** Starts on the document in `bytes[0, size)` (a view LMDB may reuse after the call). */
  protected start(bytes: Uint8Array, size: number): void {
    this.bytes = Buffer.isBuffer(bytes)
      ? bytes
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (this.view.buffer !== this.bytes.buffer) this.view = new DataView(this.bytes.buffer);
    this.pos = 0;
    this.end = size;
    this.list = this.structures();
  }

  /**
   * The shared structure id of a record token (0x40 to 0x7f, just read): ids past 31 take a
   * second byte, as msgpackr writes them (ADR 0001's structures past the first 32).
   */
  protected recordId(token: number): number {
    const low = token - 0x40;
    if (low < 32) return low;
    return low + (this.byte() << 5);
  }

  /** The structure of a record token just read (giving up on an id with none). */
  protected recordStructure(token: number): Structure {
    const structure = this.list[this.recordId(token)];
    if (!structure) throw GIVE_UP;
    return structure;
  }

  /** Moves past one value of any form this cursor knows. */
  protected skip(): void {
    const token = this.byte();
    if (token < 0x40 || token >= 0xe0) return;
    if (token < 0x80) {
      this.skipMany(this.recordStructure(token).length);
    } else if (token < 0x90) {
      this.skipMany((token & 0x0f) * 2);
    } else if (token < 0xa0) {
      this.skipMany(token & 0x0f);
    } else if (token < 0xc0) {
      this.advance(token & 0x1f);
    } else {
      this.skipLong(token);
    }
  }

  /** Moves past a value whose token is 0xc0 to 0xdf. */
  private skipLong(token: number): void {
    switch (token) {
      case 0xc0:
      case 0xc2:
      case 0xc3:
        return;
      case 0xcc:
      case 0xd0:
        this.advance(1);
        return;
      case 0xcd:
      case 0xd1:
        this.advance(2);
        return;
      case 0xca:
      case 0xce:
      case 0xd2:
        this.advance(4);
        return;
      case 0xcb:
      case 0xcf:
      case 0xd3:
        this.advance(8);
        return;
      case 0xd9:
      case 0xda:
      case 0xdb:
        this.advance(this.uint(1 << (token - 0xd9)));
        return;
      case 0xdc:
        this.skipMany(this.uint(2));
        return;
      case 0xdd:
        this.skipMany(this.uint(4));
        return;
      case 0xde:
        this.skipMany(this.uint(2) * 2);
        return;
      case 0xdf:
        this.skipMany(this.uint(4) * 2);
        return;
      default:
        throw GIVE_UP;
    }
  }

  private skipMany(count: number): void {
    for (let i = 0; i < count; i++) this.skip();
  }

  protected byte(): number {
    if (this.pos >= this.end) throw GIVE_UP;
    return this.bytes[this.pos++] as number;
  }

  /** The byte offset in `view` of the next `n` bytes, moving past them. */
  protected at(n: number): number {
    const at = this.pos;
    this.advance(n);
    return this.bytes.byteOffset + at;
  }

  protected advance(n: number): void {
    this.pos += n;
    if (this.pos > this.end) throw GIVE_UP;
  }

  /** A big-endian unsigned integer of 1, 2 or 4 bytes. */
  protected uint(n: number): number {
    const at = this.pos;
    this.advance(n);
    const b = this.bytes;
    if (n === 1) return b[at] as number;
    if (n === 2) return ((b[at] as number) << 8) | (b[at + 1] as number);
    return (
      (b[at] as number) * 0x1000000 +
      (((b[at + 1] as number) << 16) | ((b[at + 2] as number) << 8) | (b[at + 3] as number))
    );
  }
}
