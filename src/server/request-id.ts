/**
 * Request ids for answers whose request brought none: UUID-shaped, unique within an app and,
 * through a random prefix drawn when the app is built, across apps and processes. They are
 * labels for logs and traces, not secrets, so only the prefix is random: drawing a random
 * UUID per request cost more than the id's every other use together.
 */

import { randomUUID } from 'node:crypto';

/** Ids one generator hands out before its counter wraps (the UUID's last 12 hex digits). */
export const REQUEST_IDS_PER_PREFIX = 2 ** 48;

/**
 * A new generator: `xxxxxxxx-xxxx-4xxx-yxxx-` (random, drawn once) + a 12-digit counter that
 * starts at `first` (tests start near the wrap) and wraps to 0 after the last id.
 */
export function requestIdGenerator(first = 0): () => string {
  const prefix = randomUUID().slice(0, 24);
  let next = first;
  return () => {
    const id = prefix + next.toString(16).padStart(12, '0');
    next = (next + 1) % REQUEST_IDS_PER_PREFIX;
    return id;
  };
}
