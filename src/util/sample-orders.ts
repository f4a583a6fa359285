/**
 * The sample reservation orders of `seed` (a node's POST /seed, `docdb seed`, and a router's
 * POST /seed, which routes them to their shards): `orders` with nested passengers and flight
 * segments, fare and payment objects, a status and a unique `pnr`, plus the indexes that show
 * every plan kind. Deterministic for a given seed and collection size.
 */

import { dbError } from '../errors/index.js';
import { seededRandom } from './seeded-random.js';

/** The indexes `seed` creates on `orders`. */
export const SEED_INDEXES = [
  { name: 'idx_orders_pnr', paths: ['pnr'], unique: true },
  { name: 'idx_orders_status', paths: ['status'] },
  { name: 'idx_orders_passengers_lastName', paths: ['passengers[*].lastName'] },
  { name: 'idx_orders_flights_from', paths: ['flights[*].from'] },
  { name: 'idx_orders_fare_total', paths: ['fare.total'] },
  { name: 'idx_orders_status_channel', paths: ['status', 'channel'] },
] as const;

/** Documents seeded when no count is given (CLI and POST /seed). */
export const SEED_COUNT_DEFAULT = 10_000;
/** Most documents one seed call loads. */
export const SEED_COUNT_MAX = 10_000_000;
/** Orders per batch written at once. */
export const SEED_BATCH = 5_000;

const FIRST = [
  'Ada',
  'Alan',
  'Grace',
  'Linus',
  'Margaret',
  'Ken',
  'Barbara',
  'Dennis',
  'Frances',
  'Edsger',
  'Radia',
  'John',
  'Katherine',
  'Tim',
  'Hedy',
  'Niklaus',
];
const LAST = [
  'Lovelace',
  'Turing',
  'Hopper',
  'Torvalds',
  'Hamilton',
  'Thompson',
  'Liskov',
  'Ritchie',
  'Allen',
  'Dijkstra',
  'Perlman',
  'McCarthy',
  'Johnson',
  'Berners-Lee',
  'Lamarr',
  'Wirth',
  'Knuth',
  'Backus',
  'Kay',
  'Codd',
];
const AIRPORTS = [
  'CDG',
  'JFK',
  'LHR',
  'NRT',
  'SFO',
  'FRA',
  'AMS',
  'DXB',
  'SIN',
  'GRU',
  'YUL',
  'MAD',
];
const CARRIERS = ['AF', 'KL', 'BA', 'LH', 'JL', 'UA', 'EK', 'SQ'];
const STATUSES = ['confirmed', 'ticketed', 'pending', 'cancelled'];
const CABINS = ['Y', 'W', 'J', 'F'];
const CHANNELS = ['web', 'mobile', 'agency', 'call-center'];
const PNR_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** One sample order. `random` drives every choice; `pnr` is given by the caller (unique). */
export function sampleOrder(random: () => number, pnr: string): Record<string, unknown> {
  const passengers = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
    const year = 1950 + Math.floor(random() * 70);
    return {
      firstName: pick(random, FIRST),
      lastName: pick(random, LAST),
      dateOfBirth: `${year}-${pad(1 + Math.floor(random() * 12))}-${pad(1 + Math.floor(random() * 28))}`,
      type: year > 2012 ? 'CHD' : 'ADT',
    };
  });
  const departureMs = Date.UTC(2026, 0, 1) + Math.floor(random() * 365) * 86_400_000;
  let from = pick(random, AIRPORTS);
  const flights = Array.from({ length: 1 + Math.floor(random() * 2) }, (_, leg) => {
    let to = pick(random, AIRPORTS);
    if (to === from) to = AIRPORTS[(AIRPORTS.indexOf(from) + 1) % AIRPORTS.length] as string;
    const carrier = pick(random, CARRIERS);
    const dep = departureMs + leg * 6 * 3_600_000;
    const segment = {
      flightNumber: `${carrier}${100 + Math.floor(random() * 8900)}`,
      carrier,
      from,
      to,
      departure: new Date(dep).toISOString(),
      arrival: new Date(dep + (2 + Math.floor(random() * 10)) * 3_600_000).toISOString(),
      cabin: pick(random, CABINS),
    };
    from = to;
    return segment;
  });
  const base = Math.round((80 + random() * 1900) * 100) / 100;
  const taxes = Math.round(base * 0.18 * 100) / 100;
  return {
    pnr,
    status: pick(random, STATUSES),
    channel: pick(random, CHANNELS),
    createdAt: new Date(departureMs - Math.floor(random() * 90) * 86_400_000).toISOString(),
    passengers,
    flights,
    fare: { base, taxes, total: Math.round((base + taxes) * 100) / 100, currency: 'EUR' },
    payment: {
      method: random() < 0.8 ? 'card' : 'transfer',
      status: random() < 0.9 ? 'paid' : 'pending',
    },
  };
}

function pnrOf(random: () => number): string {
  let pnr = '';
  for (let i = 0; i < 6; i++) pnr += PNR_ALPHABET[Math.floor(random() * PNR_ALPHABET.length)];
  return pnr;
}

/** Refuses a count that is not an integer from 0 to SEED_COUNT_MAX. */
export function checkSeedCount(count: number): void {
  if (!Number.isInteger(count) || count < 0 || count > SEED_COUNT_MAX) {
    throw dbError('ERR_BAD_ARGUMENT', 'seedCount', { max: SEED_COUNT_MAX, count });
  }
}

/**
 * `count` sample orders in batches of SEED_BATCH. `existing` (the orders already stored) is
 * mixed into the seed, so seeding twice adds new PNRs instead of duplicates.
 */
export function* sampleOrderBatches(
  count: number,
  seed: number,
  existing: number,
): Generator<Record<string, unknown>[]> {
  const random = seededRandom(seed * 2654435761 + existing);
  const seen = new Set<string>();
  for (let start = 0; start < count; start += SEED_BATCH) {
    yield Array.from({ length: Math.min(SEED_BATCH, count - start) }, () => {
      let pnr = pnrOf(random);
      while (seen.has(pnr)) pnr = pnrOf(random);
      seen.add(pnr);
      return sampleOrder(random, pnr);
    });
  }
}
