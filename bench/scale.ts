/**
 * Scale mode (`--docs 10000000`, or `--scale` at any size): docdb alone, loaded in 1,000-
 * document batches with the five indexes, measured at checkpoints from 250,000 documents up:
 * point lookups through SQL, get by `_id`, a whole-collection unindexed filter, and the file
 * size. Issue 13's target: at 10,000,000 documents lookups keep ≥ 0.8× and loading ≥ 0.7× their
 * 250,000 rates, and the file stays ≤ 2.9 GB. Documents are generated batch by batch, never all in memory.
 */

import { open } from './engine.js';
import { AIRPORTS, idAt, keyPicker, ordersFrom, pnrAt } from './data.js';
import { createDocdbIndexes } from './embedded/docdb.js';
import { DOCDB_SQL } from './embedded/system.js';
import { type Machine, describeMachine } from './machine.js';
import { formatRate, formatRatio, timeBox } from './measure.js';
import type { Options } from './options.js';
import { tempDir } from './proc.js';
import { SCALE_TARGET } from './workloads.js';

/** The checkpoints scale mode measures at (those below --docs, then --docs itself). */
const CHECKPOINTS = [250_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000];
const BATCH_DOCS = 1000;
/** Time box of each lookup measurement. */
const LOOKUP_MS = 2000;

export interface ScalePoint {
  docs: number;
  /** Load rate of the batches since the previous checkpoint. */
  loadDocsPerSec: number;
  pointLookupsPerSec: number;
  getByIdPerSec: number;
  /** Documents the unindexed filter went through per second (one whole-collection query). */
  scanDocsPerSec: number;
  fileBytes: number;
  bytesPerDoc: number;
}

/** The JSON of a scale run (`bench/results/scale.json`). */
export interface ScaleReport {
  machine: Machine;
  date: string;
  docs: number;
  points: ScalePoint[];
  /** Lookup rate at the largest size over the rate at the first checkpoint. */
  lookupRatio: number;
  /** Load rate of the last stretch over the load rate up to the first checkpoint. */
  loadRatio: number;
  getByIdRatio: number;
  scanRatio: number;
  /** The file at 10,000,000 documents: measured when reached, else projected linearly. */
  fileBytesAt10M: number;
  fileProjected: boolean;
  targetMet: boolean | null;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Runs scale mode and prints its table. */
export async function runScale(options: Options): Promise<ScaleReport> {
  const target = options.docs;
  const checkpoints = [...CHECKPOINTS.filter((c) => c < target), target];
  const dir = tempDir('docdb-bench-scale-');
  const db = await open(dir);
  const orders = db.collection('orders');
  await createDocdbIndexes(orders);
  await db.collection('airports').insertMany([...AIRPORTS]);
  const points: ScalePoint[] = [];
  let loaded = 0;
  try {
    for (const checkpoint of checkpoints) {
      const started = performance.now();
      for (; loaded < checkpoint; loaded += BATCH_DOCS) {
        const n = Math.min(BATCH_DOCS, checkpoint - loaded);
        const result = await orders.insertMany(ordersFrom(loaded, n));
        if (result.errors.length > 0)
          throw new Error(`load failed: ${JSON.stringify(result.errors[0])}`);
        if (loaded % 500_000 === 0 && loaded > 0) log(`  loaded ${loaded.toLocaleString('en-US')}`);
      }
      loaded = checkpoint;
      const loadMs = performance.now() - started;
      const since = checkpoint - (points.at(-1)?.docs ?? 0);
      const pick = keyPicker(checkpoint, checkpoint);
      const lookups = await timeBox(LOOKUP_MS, 10, async () => {
        const { count } = await db.query(DOCDB_SQL.point, [pnrAt(pick())]);
        if (count !== 1) throw new Error('a point lookup missed');
        return 1;
      });
      const gets = await timeBox(LOOKUP_MS, 10, async () => {
        if (!(await orders.get(idAt(pick())))) throw new Error('a get by _id missed');
        return 1;
      });
      const scan = await timeBox(1, 1, async () => {
        await db.query(DOCDB_SQL.filter, ['CDG', 'CHD']);
        return checkpoint;
      });
      const fileBytes = db.stats().fileSizeBytes;
      const point: ScalePoint = {
        docs: checkpoint,
        loadDocsPerSec: (since / loadMs) * 1000,
        pointLookupsPerSec: lookups.opsPerSec,
        getByIdPerSec: gets.opsPerSec,
        scanDocsPerSec: scan.opsPerSec,
        fileBytes,
        bytesPerDoc: fileBytes / checkpoint,
      };
      points.push(point);
      log(
        `${checkpoint.toLocaleString('en-US')} docs: load ${formatRate(point.loadDocsPerSec)}/s, lookup ${formatRate(point.pointLookupsPerSec)}/s, get ${formatRate(point.getByIdPerSec)}/s, scan ${formatRate(point.scanDocsPerSec)} docs/s, file ${(fileBytes / 1e9).toFixed(2)} GB (${Math.round(point.bytesPerDoc)} B/doc)`,
      );
    }
  } finally {
    await db.close();
  }
  const first = points[0] as ScalePoint;
  const last = points.at(-1) as ScalePoint;
  const fileProjected = last.docs < SCALE_TARGET.docs;
  const fileBytesAt10M = fileProjected ? last.bytesPerDoc * SCALE_TARGET.docs : last.fileBytes;
  const lookupRatio = last.pointLookupsPerSec / first.pointLookupsPerSec;
  const loadRatio = last.loadDocsPerSec / first.loadDocsPerSec;
  const report: ScaleReport = {
    machine: describeMachine(),
    date: new Date().toISOString(),
    docs: target,
    points,
    lookupRatio,
    loadRatio,
    getByIdRatio: last.getByIdPerSec / first.getByIdPerSec,
    scanRatio: last.scanDocsPerSec / first.scanDocsPerSec,
    fileBytesAt10M,
    fileProjected,
    targetMet:
      last.docs >= SCALE_TARGET.docs
        ? lookupRatio >= SCALE_TARGET.lookupRatioAtLeast &&
          loadRatio >= SCALE_TARGET.loadRatioAtLeast &&
          fileBytesAt10M <= SCALE_TARGET.fileBytesAtMost
        : null,
  };
  log('');
  log(
    `lookup at ${last.docs.toLocaleString('en-US')} / at ${first.docs.toLocaleString('en-US')}: ${formatRatio(lookupRatio)} (target ≥ ${SCALE_TARGET.lookupRatioAtLeast}×); load ${formatRatio(loadRatio)} (target ≥ ${SCALE_TARGET.loadRatioAtLeast}×); get by _id ${formatRatio(report.getByIdRatio)}; scan rate ${formatRatio(report.scanRatio)}`,
  );
  log(
    `file at 10,000,000 documents: ${(fileBytesAt10M / 1e9).toFixed(2)} GB${fileProjected ? ' (projected from the last checkpoint)' : ''} (target ≤ 2.9 GB)`,
  );
  if (report.targetMet === null) log('the scale target is judged at 10,000,000 documents only');
  return report;
}
