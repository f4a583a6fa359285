/**
 * Storage rates of the embedded API on this machine: durable inserts (single and in bulk,
 * with the five indexes of the benchmark workload), point gets by id, full scans and
 * indexed equality finds. Peers and ratios come with `npm run bench` (issue 5); this script
 * only reports docdb's own rates. Usage: npx tsx bench/storage-rates.ts [--docs N]
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { open } from '../dist/index.js';

const docsArg = process.argv.indexOf('--docs');
const DOCS = docsArg > 0 ? Number(process.argv[docsArg + 1]) : 100_000;

function order(i: number) {
  return {
    pnr: `P${i.toString(36).toUpperCase().padStart(6, '0')}`,
    status: ['confirmed', 'cancelled', 'pending', 'ticketed'][i % 4],
    createdAt: new Date(1_700_000_000_000 + i * 60_000).toISOString(),
    passengers: [
      { firstName: 'Ada', lastName: `Name${i % 5000}`, dob: '1990-01-01', type: 'ADT' },
      { firstName: 'Alan', lastName: `Name${(i * 7) % 5000}`, dob: '1988-05-17', type: 'ADT' },
    ],
    flights: [
      {
        no: `AF${i % 900}`,
        carrier: 'AF',
        from: ['CDG', 'JFK', 'LHR', 'NRT'][i % 4],
        to: 'SFO',
        dep: '2026-01-01T10:00:00Z',
        cabin: 'Y',
      },
    ],
    fare: { total: Math.round((100 + (i % 2000) * 1.37) * 100) / 100, currency: 'EUR' },
    payment: { method: 'card', last4: String(1000 + (i % 9000)) },
  };
}

function rate(count: number, ms: number): string {
  return `${Math.round((count / ms) * 1000).toLocaleString('en-US')}/s`;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docdb-bench-'));
try {
  const db = await open(dir);
  const orders = db.collection('orders');
  await orders.createIndex({ paths: ['pnr'], unique: true });
  await orders.createIndex({ paths: ['status'] });
  await orders.createIndex({ paths: ['passengers[*].lastName'] });
  await orders.createIndex({ paths: ['flights[*].from'] });
  await orders.createIndex({ paths: ['fare.total'] });
  const json = JSON.stringify(order(1)).length;

  let t = performance.now();
  const ids: string[] = [];
  for (let start = 0; start < DOCS; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, DOCS - start) }, (_, k) => order(start + k));
    ids.push(...(await orders.insertMany(batch)).ids);
  }
  const bulkMs = performance.now() - t;

  t = performance.now();
  const singles = 10_000;
  const inFlight = 64;
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < singles) {
        const i = DOCS + next++;
        await orders.insert(order(i));
      }
    }),
  );
  const singleMs = performance.now() - t;

  t = performance.now();
  const gets = 200_000;
  for (let k = 0; k < gets; k++) await orders.get(ids[(k * 7919) % ids.length] as string);
  const getMs = performance.now() - t;

  t = performance.now();
  let scanned = 0;
  for (const _ of orders.scan()) scanned++;
  const scanMs = performance.now() - t;

  t = performance.now();
  const finds = 50_000;
  for (let k = 0; k < finds; k++) orders.findBy('pnr', order((k * 31) % DOCS).pnr);
  const findMs = performance.now() - t;

  const stats = db.stats();
  await db.close();
  console.log(
    `docdb storage rates, ${DOCS} documents of ~${json} B JSON, 5 indexes, ${os.cpus().length} cores, Node ${process.version}`,
  );
  console.log(`bulk insert (1,000/batch, durable):   ${rate(DOCS, bulkMs)}`);
  console.log(`single inserts (64 in flight, durable): ${rate(singles, singleMs)}`);
  console.log(`get by _id:                            ${rate(gets, getMs)}`);
  console.log(`full scan (decode every document):     ${rate(scanned, scanMs)}`);
  console.log(`find by unique index (pnr):            ${rate(finds, findMs)}`);
  console.log(
    `file: ${(stats.fileSizeBytes / 1024 / 1024).toFixed(1)} MiB, ${Math.round(stats.fileSizeBytes / (DOCS + singles))} B/document incl. indexes and change log`,
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
