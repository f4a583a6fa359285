/**
 * The handshake's proofs (DESIGN §6): each side sends a fresh random nonce and the other
 * answers HMAC-SHA256(secret, role label + nonce), checked in constant time. The secret never
 * crosses the wire, an answer is good for one nonce only (a replayed one fails), and the
 * labels keep a proof made for one direction from being reflected back in the other. On TLS
 * the proofs are bound to the TLS session, so they also authenticate the channel. Also the
 * connecting side's opening (`introduce`), which a follower and a promoted node's notice share.
 */

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { assert, type DbError, dbError } from '../errors/index.js';
import type { Peer } from './peer.js';
import { type MessageOf, PROTOCOL_VERSION } from './protocol.js';

/** Bytes of a nonce. */
export const NONCE_BYTES = 32;

/** Who makes a proof: the follower proves itself to the leader and the leader to the follower. */
export type ProofRole = 'follower' | 'leader';

export function newNonce(): Buffer {
  return randomBytes(NONCE_BYTES);
}

const EMPTY = new Uint8Array(0);

/**
 * The proof that `role` knows `secret`, for the other side's `nonce`. On TLS, `binding` is the
 * session's exported keying material, the same at both ends of one TLS session only: a proof
 * relayed by a man in the middle (two sessions) does not check.
 */
export function proofOf(
  secret: string,
  role: ProofRole,
  nonce: Uint8Array,
  binding: Uint8Array = EMPTY,
): Buffer {
  return createHmac('sha256', secret)
    .update(`docdb-replication/1 ${role} `)
    .update(nonce)
    .update(binding)
    .digest();
}

/** True when `proof` is the proof of `secret` for `nonce`, compared in constant time. */
export function checkProof(
  secret: string,
  role: ProofRole,
  nonce: Uint8Array,
  proof: Uint8Array | undefined,
  binding?: Uint8Array,
): boolean {
  const expected = proofOf(secret, role, nonce, binding);
  if (!proof || proof.length !== expected.length) return false;
  return timingSafeEqual(expected, proof);
}

/** What the connecting side says of itself: a hello without its type, version and nonce. */
export type Introduction = Omit<MessageOf<'hello'>, 't' | 'protocol' | 'nonce'>;

/**
 * The connecting side's opening: says hello, takes the listener's challenge, and proves it
 * knows `secret` (when set), whatever the challenge says: a listener of an older term learns
 * of this side's newer one only from a node that proved itself. Answers the challenge and
 * this side's nonce, which the listener's own proof (in its answer) must be over. A refusal
 * rejects with ERR_REPLICATION_REFUSED naming its reason.
 */
export async function introduce(
  peer: Peer,
  hello: Introduction,
  options: { secret: string | undefined; timeoutMs: number },
): Promise<{ challenge: MessageOf<'challenge'>; nonce: Buffer }> {
  const { secret, timeoutMs } = options;
  const nonce = newNonce();
  await peer.send({ t: 'hello', protocol: PROTOCOL_VERSION, nonce, ...hello });
  const challenge = await peer.receive(['challenge', 'refused'], timeoutMs);
  if (challenge.t === 'refused') throw refusedBy(peer.address, challenge);
  assert(challenge.t === 'challenge', `a hello was answered with ${challenge.t}`);
  // A listener of another version refuses the hello itself; one that answered all the same
  // is not spoken to further.
  if (challenge.protocol !== PROTOCOL_VERSION) {
    throw dbError('ERR_REPLICATION_PROTOCOL', 'otherVersion', {
      address: peer.address,
      protocol: challenge.protocol,
      ours: PROTOCOL_VERSION,
    });
  }
  await peer.send({
    t: 'auth',
    ...(secret !== undefined && {
      proof: proofOf(secret, 'follower', challenge.nonce, peer.binding),
    }),
  });
  return { challenge, nonce };
}

/** The error a refusal from the listener at `address` (`host:port`) becomes. */
export function refusedBy(address: string, refusal: MessageOf<'refused'>): DbError {
  return dbError(
    'ERR_REPLICATION_REFUSED',
    'handshake',
    { address, reason: refusal.reason },
    { code: refusal.code },
  );
}
