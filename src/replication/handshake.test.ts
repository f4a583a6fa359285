/**
 * The handshake's proofs: the right secret checks; a wrong or missing one does not; a proof
 * is good for its own nonce only (a replayed answer fails), for its own direction only (a
 * leader's proof cannot be reflected as a follower's), and for its own TLS session only.
 */

import { describe, expect, it } from 'vitest';
import { checkProof, NONCE_BYTES, newNonce, proofOf } from './handshake.js';

describe('handshake proofs', () => {
  const secret = 's3cret';

  it('checks with the right secret', () => {
    const nonce = newNonce();
    expect(nonce.length).toBe(NONCE_BYTES);
    expect(checkProof(secret, 'follower', nonce, proofOf(secret, 'follower', nonce))).toBe(true);
  });

  it('fails with a wrong secret, a missing proof or a cut one', () => {
    const nonce = newNonce();
    expect(checkProof(secret, 'follower', nonce, proofOf('other', 'follower', nonce))).toBe(false);
    expect(checkProof(secret, 'follower', nonce, undefined)).toBe(false);
    const proof = proofOf(secret, 'follower', nonce);
    expect(checkProof(secret, 'follower', nonce, proof.subarray(0, 16))).toBe(false);
  });

  it('fails for a replayed answer: a new nonce needs a new proof', () => {
    const first = newNonce();
    const answer = proofOf(secret, 'follower', first);
    const second = newNonce();
    expect(second.equals(first)).toBe(false);
    expect(checkProof(secret, 'follower', second, answer)).toBe(false);
  });

  it('fails when a proof is reflected in the other direction', () => {
    const nonce = newNonce();
    expect(checkProof(secret, 'follower', nonce, proofOf(secret, 'leader', nonce))).toBe(false);
  });

  it('binds a proof to its TLS session', () => {
    const nonce = newNonce();
    const session = Buffer.alloc(32, 1);
    const proof = proofOf(secret, 'leader', nonce, session);
    expect(checkProof(secret, 'leader', nonce, proof, session)).toBe(true);
    expect(checkProof(secret, 'leader', nonce, proof, Buffer.alloc(32, 2))).toBe(false);
  });

  it('never puts the secret in the proof', () => {
    const proof = proofOf('a-secret-that-shows', 'follower', newNonce());
    expect(proof.toString('latin1')).not.toContain('a-secret-that-shows');
    expect(proof.length).toBe(32);
  });
});
