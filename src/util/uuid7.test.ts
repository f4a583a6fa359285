/**
 * Proves the id rules of DESIGN §3: newId gives 16-byte UUIDv7s (version 7, RFC 9562
 * variant) that strictly increase within the process, also inside one millisecond and when
 * the clock goes back; the timestamp round-trips; formatId gives the lowercase dashed form;
 * parseId takes dashed or 32-hex ids in any case and returns undefined for anything else.
 *
 * newId keeps module state (the last millisecond), so the tests that pass explicit times run
 * after those that use the clock and only ever move the time forwards for the next test.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatId, ID_BYTES, idTimestampMs, newId, parseId } from './uuid7.js';

const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function expectWellFormed(id: Buffer): void {
  expect(id.length).toBe(ID_BYTES);
  expect((id[6] as number) >> 4).toBe(7);
  expect((id[8] as number) & 0xc0).toBe(0x80);
}

describe('newId', () => {
  it('makes 16-byte ids with version 7 and the RFC 9562 variant', () => {
    for (let i = 0; i < 1000; i++) expectWellFormed(newId());
  });

  it('stamps the current time', () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    expect(idTimestampMs(id)).toBeGreaterThanOrEqual(before);
    expect(idTimestampMs(id)).toBeLessThanOrEqual(after + 1);
  });

  it('strictly increases over 100,000 calls', () => {
    let previous = newId();
    let failures = 0;
    for (let i = 0; i < 100_000; i++) {
      const id = newId();
      if (Buffer.compare(previous, id) >= 0) failures++;
      previous = id;
    }
    expect(failures).toBe(0);
  });

  it('never repeats a value', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(newId().toString('hex'));
    expect(seen.size).toBe(20_000);
  });

  it('strictly increases when the same millisecond is passed repeatedly', () => {
    const fixedMs = Date.now() + 60_000;
    const ids = Array.from({ length: 10_000 }, () => newId(fixedMs));
    const outOfOrder = ids.filter(
      (id, i) => i > 0 && Buffer.compare(ids[i - 1] as Buffer, id) >= 0,
    );
    expect(outOfOrder).toEqual([]);
    expect(ids.filter((id) => idTimestampMs(id) !== fixedMs)).toEqual([]);
    expect(
      ids.filter((id) => (id[6] as number) >> 4 !== 7 || (id[8] as number) >> 6 !== 2),
    ).toEqual([]);
  });

  it('strictly increases when the clock goes backwards, keeping the last timestamp', () => {
    const ms = Date.now() + 120_000;
    const first = newId(ms);
    const back = [ms - 1, ms - 1000, 0, ms - 5].map((t) => newId(t));
    let previous = first;
    for (const id of back) {
      expect(Buffer.compare(previous, id)).toBe(-1);
      expect(idTimestampMs(id)).toBe(ms);
      expectWellFormed(id);
      previous = id;
    }
    // Once the clock passes the last millisecond again, its time is used.
    const later = newId(ms + 1);
    expect(Buffer.compare(previous, later)).toBe(-1);
    expect(idTimestampMs(later)).toBe(ms + 1);
  });

  it('round-trips the timestamp through idTimestampMs for increasing times', () => {
    let ms = Date.now() + 180_000;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 ** 9 }), (step) => {
        ms += step;
        expect(idTimestampMs(newId(ms))).toBe(ms);
      }),
      { numRuns: 200 },
    );
  });
});

describe('idTimestampMs', () => {
  it('reads the first 48 bits big-endian, also from a view inside a larger buffer', () => {
    const bytes = Buffer.from('0193a4f27c1e7d3a9b2e4f6a8c0d1e2f', 'hex');
    expect(idTimestampMs(bytes)).toBe(0x0193a4f27c1e);
    const backing = new Uint8Array(40);
    backing.set(bytes, 7);
    expect(idTimestampMs(backing.subarray(7, 7 + ID_BYTES))).toBe(0x0193a4f27c1e);
    expect(idTimestampMs(Buffer.alloc(ID_BYTES, 0xff))).toBe(2 ** 48 - 1);
  });
});

describe('formatId', () => {
  it('gives the canonical lowercase dashed form', () => {
    const bytes = Buffer.from('0193A4F27C1E7D3A9B2E4F6A8C0D1E2F', 'hex');
    expect(formatId(bytes)).toBe('0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f');
    expect(formatId(Buffer.from([...Array(16).keys()]))).toBe(
      '00010203-0405-0607-0809-0a0b0c0d0e0f',
    );
  });

  it('formats every new id canonically', () => {
    for (let i = 0; i < 1000; i++) expect(formatId(newId())).toMatch(CANONICAL);
  });

  it('round-trips any 16 bytes through parseId', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (raw) => {
        const text = formatId(raw);
        expect(text).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(parseId(text)?.equals(Buffer.from(raw))).toBe(true);
      }),
    );
  });
});

/** Independent reference for what parseId accepts. */
function isUuidText(text: string): boolean {
  const hex = (s: string) =>
    s.length > 0 && [...s].every((c) => '0123456789abcdefABCDEF'.includes(c));
  if (text.length === 32) return hex(text);
  if (text.length !== 36) return false;
  const groups = text.split('-');
  return (
    groups.length === 5 && groups.map((g) => g.length).join() === '8,4,4,4,12' && groups.every(hex)
  );
}

describe('parseId', () => {
  const canonical = '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f';
  const bytes = Buffer.from('0193a4f27c1e7d3a9b2e4f6a8c0d1e2f', 'hex');

  it('accepts the dashed and the undashed form in any letter case', () => {
    for (const text of [
      canonical,
      canonical.toUpperCase(),
      '0193A4f2-7C1e-7d3A-9B2e-4F6a8C0d1E2f',
      canonical.replaceAll('-', ''),
      canonical.replaceAll('-', '').toUpperCase(),
    ]) {
      expect(parseId(text)?.equals(bytes), text).toBe(true);
    }
  });

  it('accepts any version and variant (a client-supplied UUID is kept)', () => {
    expect(parseId('00000000-0000-0000-0000-000000000000')?.equals(Buffer.alloc(16))).toBe(true);
    expect(parseId('ffffffff-ffff-4fff-bfff-ffffffffffff')).toBeDefined();
  });

  it('rejects wrong lengths, non-hex digits, misplaced dashes, braces and padding', () => {
    for (const text of [
      '',
      canonical.slice(0, -1),
      canonical + '0',
      canonical.replaceAll('-', '').slice(0, 31),
      canonical.replaceAll('-', '') + '0',
      canonical.replace('a', 'g'),
      canonical.replaceAll('-', '').replace('a', 'z'),
      `{${canonical}}`,
      `urn:uuid:${canonical}`,
      ` ${canonical}`,
      `${canonical} `,
      `${canonical}\n`,
      '0193a4f27c1e-7d3a-9b2e-4f6a8c0d1e2f-',
      '0193a4f-27c1e-7d3a-9b2e-4f6a8c0d1e2f',
      '0193a4f2_7c1e_7d3a_9b2e_4f6a8c0d1e2f',
      '0193a4f2-7c1e7d3a-9b2e-4f6a8c0d1e2f',
      '0x193a4f27c1e7d3a9b2e4f6a8c0d1e2f',
      '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2ｆ',
    ]) {
      expect(parseId(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('rejects non-strings', () => {
    for (const value of [
      undefined,
      null,
      0,
      123,
      true,
      bytes,
      [canonical],
      { id: canonical },
      new String(canonical),
    ]) {
      expect(parseId(value)).toBeUndefined();
    }
  });

  it('accepts exactly the strings the reference accepts, on mutations of valid ids', () => {
    const mutated = fc
      .tuple(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.boolean(),
        fc.boolean(),
        fc.array(
          fc.tuple(
            fc.constantFrom('delete', 'insert', 'replace'),
            fc.nat(40),
            fc.constantFrom('-', 'g', 'G', 'a', 'F', '0', ' ', '{', '}', 'é', '\u0000'),
          ),
          { maxLength: 3 },
        ),
      )
      .map(([raw, dashed, upper, edits]) => {
        let text = formatId(raw);
        if (!dashed) text = text.replaceAll('-', '');
        if (upper) text = text.toUpperCase();
        for (const [op, at, ch] of edits) {
          const i = at % (text.length + 1);
          if (op === 'delete') text = text.slice(0, i) + text.slice(i + 1);
          else if (op === 'insert') text = text.slice(0, i) + ch + text.slice(i);
          else text = text.slice(0, i) + ch + text.slice(i + 1);
        }
        return text;
      });
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string({ maxLength: 40 })), (text) => {
        const parsed = parseId(text);
        expect(parsed !== undefined).toBe(isUuidText(text));
        if (parsed) expect(parsed.toString('hex')).toBe(text.replaceAll('-', '').toLowerCase());
      }),
      { numRuns: 2000 },
    );
  });
});
