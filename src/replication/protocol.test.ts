/**
 * The protocol's message check: a well-formed message of each type passes; a missing or
 * badly typed field, an unknown type, or a type that does not belong at this point of the
 * session is refused with ERR_REPLICATION_PROTOCOL naming it; a hello's fields beyond its
 * version are checked only once its version is known to be this one's.
 */

import { describe, expect, it } from 'vitest';
import { SHARED_STRUCTURES_MAX } from '../util/index.js';
import { checkHello, type MessageOf, parseMessage } from './protocol.js';

const nonce = new Uint8Array(32);

describe('parseMessage', () => {
  it('takes a well-formed message of every type', () => {
    const chain = 'ab'.repeat(16);
    const messages = [
      {
        t: 'hello',
        protocol: 3,
        node: 'n2',
        seq: 0,
        runs: [],
        term: 1,
        tag: 3,
        silenceMs: 0,
        nonce,
      },
      { t: 'challenge', protocol: 3, node: 'n1', term: 1, tag: 4, nonce, secret: true },
      { t: 'auth' },
      { t: 'probe', seqs: [1, 5] },
      { t: 'chains', samples: [{ seq: 1, chain }, { seq: 5 }] },
      { t: 'noticed', term: 3, fenced: true },
      { t: 'welcome', node: 'n1', term: 1, lastSeq: 4, catchUp: 'log', tagTaken: true },
      { t: 'refused', code: 'ERR_REPLICATION_AUTH', reason: 'no' },
      { t: 'structures', from: 0, structures: [['a', 'b'], []] },
      { t: 'entries', entries: [new Uint8Array(3)] },
      {
        t: 'snapshot',
        seq: 4,
        term: 1,
        lastTerm: 1,
        lastChain: chain,
        runs: [{ term: 1, from: 1 }],
        collections: [{ name: 'a', indexes: [] }],
      },
      { t: 'documents', collection: 'a', documents: [{ id: 'x', doc: { a: 1 } }] },
      { t: 'snapshotEnd', seq: 4 },
      { t: 'heartbeat', seq: 4, term: 1, atMs: 1, stampMs: 10, held: false },
      { t: 'ack', seq: 4, silenceMs: 0 },
      { t: 'ack', seq: 4, silenceMs: 2000, echoMs: 10 },
      { t: 'resend', after: 3 },
    ];
    for (const message of messages) expect(parseMessage(message)).toBe(message);
  });

  it("reads a hello's version first, and its other fields only once it is this version", () => {
    // A hello of version 1 passes the first check, so its sender can be refused with a reason.
    const old = { t: 'hello', protocol: 1, node: 'n2', seq: 0, lastTerm: 0, term: 1, nonce };
    const hello = parseMessage(old) as MessageOf<'hello'>;
    expect(() => checkHello(hello)).toThrow(/hello has a missing or bad field runs/);
    const current = { ...old, protocol: 3, runs: [], tag: 1, silenceMs: 0 };
    expect(checkHello(parseMessage(current) as MessageOf<'hello'>)).toBe(current);
    expect(() => checkHello({ ...current, tag: 2 ** 24 } as MessageOf<'hello'>)).toThrow(
      /field tag/,
    );
    expect(() =>
      checkHello({ ...current, lastChain: 'nope' } as unknown as MessageOf<'hello'>),
    ).toThrow(/field lastChain/);
    expect(() =>
      checkHello({ ...current, notice: { port: 1 } } as unknown as MessageOf<'hello'>),
    ).toThrow(/field notice/);
  });

  it('refuses a missing or badly typed field, naming it', () => {
    expect(() => parseMessage({ t: 'ack' })).toThrow(/ack has a missing or bad field seq/);
    expect(() => parseMessage({ t: 'ack', seq: -1, silenceMs: 0 })).toThrow(/field seq/);
    expect(() => parseMessage({ t: 'ack', seq: '4', silenceMs: 0 })).toThrow(/field seq/);
    expect(() => parseMessage({ t: 'ack', seq: 4 })).toThrow(/field silenceMs/);
    expect(() => parseMessage({ t: 'probe', seqs: Array(33).fill(1) })).toThrow(/field seqs/);
    expect(() =>
      parseMessage({ t: 'welcome', node: 'n1', term: 1, lastSeq: 4, catchUp: 'all' }),
    ).toThrow(/field catchUp/);
    expect(() => parseMessage({ t: 'entries', entries: ['text'] })).toThrow(/field entries/);
    expect(() => parseMessage({ t: 'structures', from: 0, structures: [[1]] })).toThrow(
      /field structures/,
    );
    const many = Array.from({ length: SHARED_STRUCTURES_MAX + 1 }, () => ['a']);
    expect(() => parseMessage({ t: 'structures', from: 0, structures: many })).toThrow(
      /field structures/,
    );
    expect(() =>
      parseMessage({ t: 'structures', from: SHARED_STRUCTURES_MAX + 1, structures: [] }),
    ).toThrow(/field from/);
  });

  it('refuses what is not a message', () => {
    for (const value of [null, 4, 'ack', [], { seq: 1 }, { t: 'nonsense' }, { t: 'toString' }]) {
      expect(() => parseMessage(value)).toThrow(
        expect.objectContaining({ code: 'ERR_REPLICATION_PROTOCOL' }),
      );
    }
  });

  it('refuses a type that does not come at this point', () => {
    expect(() => parseMessage({ t: 'ack', seq: 1 }, ['hello'])).toThrow(
      /ack came where hello was expected/,
    );
  });
});
