/**
 * A bounded map that lets a cold entry go when full (the CLOCK approximation of least
 * recently used): a hit only marks its entry used, so a hot lookup writes one flag instead of
 * moving the key to the back of the Map (a delete and a set, which cost a statement cache
 * hit more than the lookup). Pure; it owns no policy beyond the bound.
 */

interface Slot<V> {
  value: V;
  used: boolean;
}

/** At most `limit` entries; past it, the oldest entry not used since its last pass goes. */
export class ClockCache<V> {
  private readonly slots = new Map<string, Slot<V>>();

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`cache limit ${limit}`);
  }

  /** The value under `key`, marked used; undefined when none is held. */
  get(key: string): V | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    slot.used = true;
    return slot.value;
  }

  /** Holds `value` under `key`, first letting a cold entry go when full. */
  set(key: string, value: V): void {
    const slot = this.slots.get(key);
    if (slot !== undefined) {
      slot.value = value;
      slot.used = true;
      return;
    }
    if (this.slots.size >= this.limit) this.evictOne();
    this.slots.set(key, { value, used: false });
  }

  /** How many entries are held. */
  get size(): number {
    return this.slots.size;
  }

  /**
   * Walks from the oldest entry: a used one gets a second chance (its flag cleared, moved to
   * the back), the first unused one goes. Each entry is passed at most once before one goes,
   * so the walk ends within `limit + 1` steps, and is rare: only a miss on a full cache.
   */
  private evictOne(): void {
    for (const [key, slot] of this.slots) {
      this.slots.delete(key);
      if (!slot.used) return;
      slot.used = false;
      this.slots.set(key, slot);
    }
  }
}
