/**
 * The handshake's proofs (DESIGN §6): each side sends a fresh random nonce and the other
 * answers HMAC-SHA256(secret, role label + nonce), checked in constant time. The secret never
 * crosses the wire, an answer is good for one nonce only (a replayed one fails), and the
 * labels keep a proof made for one direction from being reflected back in the other. On TLS
 * the proofs are bound to the TLS session, so they also authenticate the channel.
 */

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

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
