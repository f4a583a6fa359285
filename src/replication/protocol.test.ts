/**
 * The protocol's message check: a well-formed message of each type passes; a missing or
 * badly typed field, an unknown type, or a type that does not belong at this point of the
 * session is refused with ERR_REPLICATION_PROTOCOL naming it.
 */

import { describe, expect, it } from 'vitest';
import { parseMessage } from './protocol.js';

const nonce = new Uint8Array(32);

describe('parseMessage', () => {
  it('takes a well-formed message of every type', () => {
    const messages = [
      { t: 'hello', protocol: 1, node: 'n2', seq: 0, lastTerm: 0, term: 1, nonce },
      { t: 'challenge', protocol: 1, node: 'n1', term: 1, nonce, secret: true },
      { t: 'auth' },
      { t: 'welcome', node: 'n1', term: 1, lastSeq: 4, catchUp: 'log' },
      { t: 'refused', code: 'ERR_REPLICATION_AUTH', reason: 'no' },
      { t: 'entries', entries: [new Uint8Array(3)] },
      { t: 'snapshot', seq: 4, term: 1, lastTerm: 1, collections: [{ name: 'a', indexes: [] }] },
      { t: 'documents', collection: 'a', documents: [{ id: 'x', doc: { a: 1 } }] },
      { t: 'snapshotEnd', seq: 4 },
      { t: 'heartbeat', seq: 4, term: 1, atMs: 1 },
      { t: 'ack', seq: 4 },
      { t: 'resend', after: 3 },
    ];
    for (const message of messages) expect(parseMessage(message)).toBe(message);
  });

  it('refuses a missing or badly typed field, naming it', () => {
    expect(() => parseMessage({ t: 'ack' })).toThrow(/ack has a missing or bad field seq/);
    expect(() => parseMessage({ t: 'ack', seq: -1 })).toThrow(/field seq/);
    expect(() => parseMessage({ t: 'ack', seq: '4' })).toThrow(/field seq/);
    expect(() =>
      parseMessage({ t: 'welcome', node: 'n1', term: 1, lastSeq: 4, catchUp: 'all' }),
    ).toThrow(/field catchUp/);
    expect(() => parseMessage({ t: 'entries', entries: ['text'] })).toThrow(/field entries/);
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
