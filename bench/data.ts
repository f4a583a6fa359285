/**
 * The benchmark's one data generator: airline orders of about 520 B of JSON, the same
 * documents for every system. Document `i` depends only on `i` (each has its own seeded
 * PRNG), so any process — the harness, a load worker — makes the same document, `_id` and
 * `pnr` for the same number without keeping the data set in memory.
 */

/** A JSON document of the benchmark. */
import { seededRandom } from './engine.js';

export type Order = {
  _id: string;
  pnr: string;
  status: string;
  channel: string;
  createdAt: string;
  passengers: { firstName: string; lastName: string; dob: string; type: string }[];
  flights: {
    number: string;
    carrier: string;
    from: string;
    to: string;
    departure: string;
    cabin: string;
  }[];
  fare: { taxes: number; total: number; currency: string };
  payment: { method: string; last4: string };
};

/** One airport of the reference collection the JOIN workload uses. */
export type Airport = { code: string; city: string; country: string; name: string };

/** The seed that makes every run produce the same documents. */
export const DATA_SEED = 20_250_501;

/** Fare base amounts are uniform in [FARE_BASE_MIN, FARE_BASE_MIN + FARE_BASE_SPAN). */
const FARE_BASE_MIN = 80;
const FARE_BASE_SPAN = 1900;
/** Taxes are 18 % of the base, so totals are uniform in [FARE_TOTAL_MIN, FARE_TOTAL_MAX). */
export const FARE_TOTAL_MIN = FARE_BASE_MIN * 1.18;
export const FARE_TOTAL_MAX = (FARE_BASE_MIN + FARE_BASE_SPAN) * 1.18;

/** The base of the `_id` timestamps: ids are UUIDv7 in document order, as docdb makes them. */
const ID_EPOCH_MS = Date.UTC(2025, 0, 1);

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
/** 200 last names: the multikey index on passengers[*].lastName gets realistic fan-out. */
const LAST_STEMS = [
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
  'Lamarr',
  'Wirth',
  'Knuth',
  'Backus',
  'Kay',
  'Codd',
  'Hoare',
];
const LAST = LAST_STEMS.flatMap((stem) =>
  ['', 'son', 'er', 'ez', 'ski', 'sen', 'ini', 'ova', 'ard', 'berg'].map((end) => stem + end),
);

/** The reference collection of the JOIN workload: every airport an order flies from or to. */
export const AIRPORTS: readonly Airport[] = [
  { code: 'CDG', city: 'Paris', country: 'FR', name: 'Charles de Gaulle' },
  { code: 'JFK', city: 'New York', country: 'US', name: 'John F. Kennedy' },
  { code: 'LHR', city: 'London', country: 'GB', name: 'Heathrow' },
  { code: 'NRT', city: 'Tokyo', country: 'JP', name: 'Narita' },
  { code: 'SFO', city: 'San Francisco', country: 'US', name: 'San Francisco International' },
  { code: 'FRA', city: 'Frankfurt', country: 'DE', name: 'Frankfurt am Main' },
  { code: 'AMS', city: 'Amsterdam', country: 'NL', name: 'Schiphol' },
  { code: 'DXB', city: 'Dubai', country: 'AE', name: 'Dubai International' },
  { code: 'SIN', city: 'Singapore', country: 'SG', name: 'Changi' },
  { code: 'GRU', city: 'Sao Paulo', country: 'BR', name: 'Guarulhos' },
  { code: 'YUL', city: 'Montreal', country: 'CA', name: 'Trudeau' },
  { code: 'MAD', city: 'Madrid', country: 'ES', name: 'Barajas' },
];
const CODES = AIRPORTS.map((a) => a.code);
const CARRIERS = ['AF', 'KL', 'BA', 'LH', 'JL', 'UA', 'EK', 'SQ'];
export const STATUSES = ['confirmed', 'ticketed', 'pending', 'cancelled'] as const;
const CABINS = ['Y', 'W', 'J', 'F'];
const CHANNELS = ['web', 'mobile', 'agency', 'call-center'];
const PNR_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Six PNR characters of 5 bits: 2^30 distinct codes, far above the 10,000,000 of scale mode. */
const PNR_BITS = 30;
/** An odd multiplier: i → i·M mod 2^30 is a bijection, so PNRs are unique and unordered. */
const PNR_MULTIPLIER = 0x2545f491;

/** The engine's seeded generator (mulberry32), so bench data and sample data agree on it. */
export const prng = seededRandom;

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** The `_id` of document `i`: a UUIDv7 whose timestamp grows with `i`. */
export function idAt(i: number): string {
  const random = prng(DATA_SEED ^ Math.imul(i + 1, 0x9e3779b1));
  const bytes = new Array<number>(16);
  const ms = ID_EPOCH_MS + i;
  for (let k = 0; k < 6; k++) bytes[k] = Math.floor(ms / 2 ** (8 * (5 - k))) % 256;
  for (let k = 6; k < 16; k++) bytes[k] = Math.floor(random() * 256);
  bytes[6] = 0x70 | ((bytes[6] as number) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  let s = '';
  for (let k = 0; k < 16; k++) {
    if (k === 4 || k === 6 || k === 8 || k === 10) s += '-';
    s += HEX[bytes[k] as number];
  }
  return s;
}

/** The unique `pnr` of document `i`. */
export function pnrAt(i: number): string {
  // imul keeps the low 32 bits of the product, so masking gives i·M mod 2^30 exactly.
  let code = Math.imul(i, PNR_MULTIPLIER) & (2 ** PNR_BITS - 1);
  let pnr = '';
  for (let k = 0; k < PNR_BITS / 5; k++) {
    pnr += PNR_ALPHABET[code & 31];
    code >>>= 5;
  }
  return pnr;
}

/** Document `i` of the data set. */
export function orderAt(i: number): Order {
  const random = prng(DATA_SEED + Math.imul(i, 0x85ebca6b));
  const passengers = Array.from({ length: 1 + Math.floor(random() * 2) }, () => {
    const year = 1950 + Math.floor(random() * 70);
    return {
      firstName: pick(random, FIRST),
      lastName: pick(random, LAST),
      dob: `${year}-${pad(1 + Math.floor(random() * 12))}-${pad(1 + Math.floor(random() * 28))}`,
      type: year > 2012 ? 'CHD' : 'ADT',
    };
  });
  const departureMs = Date.UTC(2026, 0, 1) + Math.floor(random() * 365) * 86_400_000;
  let from = pick(random, CODES);
  const flights = Array.from({ length: random() < 0.3 ? 2 : 1 }, (_, leg) => {
    let to = pick(random, CODES);
    if (to === from) to = CODES[(CODES.indexOf(from) + 1) % CODES.length] as string;
    const carrier = pick(random, CARRIERS);
    const dep = departureMs + leg * 6 * 3_600_000;
    const segment = {
      number: `${carrier}${100 + Math.floor(random() * 8900)}`,
      carrier,
      from,
      to,
      departure: new Date(dep).toISOString(),
      cabin: pick(random, CABINS),
    };
    from = to;
    return segment;
  });
  const base = Math.round((FARE_BASE_MIN + random() * FARE_BASE_SPAN) * 100) / 100;
  const taxes = Math.round(base * 0.18 * 100) / 100;
  return {
    _id: idAt(i),
    pnr: pnrAt(i),
    status: pick(random, STATUSES),
    channel: pick(random, CHANNELS),
    createdAt: new Date(departureMs - Math.floor(random() * 90) * 86_400_000).toISOString(),
    passengers,
    flights,
    fare: { taxes, total: Math.round((base + taxes) * 100) / 100, currency: 'EUR' },
    payment: {
      method: random() < 0.8 ? 'card' : 'transfer',
      last4: String(1000 + Math.floor(random() * 9000)),
    },
  };
}

/** Documents `start` … `start + count - 1`. */
export function ordersFrom(start: number, count: number): Order[] {
  const out = new Array<Order>(count);
  for (let k = 0; k < count; k++) out[k] = orderAt(start + k);
  return out;
}

/**
 * The width of a fare.total window expected to hold `matches` of `docs` documents (totals
 * are uniform), so range and JOIN workloads touch the same share at every data size.
 */
export function fareWindow(docs: number, matches: number): number {
  return ((FARE_TOTAL_MAX - FARE_TOTAL_MIN) * matches) / docs;
}

/** A deterministic stream of document numbers in [0, bound), for picking keys to look up. */
export function keyPicker(bound: number, seed: number): () => number {
  const random = prng(DATA_SEED ^ seed);
  return () => Math.floor(random() * bound);
}
