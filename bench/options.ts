/**
 * The harness's command line: `npm run bench -- [--quick] [--docs N] [--rounds N]
 * [--only embedded|served|writers|cluster] [--scale] [--quiet-wait S]`. Parsed with node:util's parseArgs; every other knob
 * follows from the mode (full or quick).
 */

import { parseArgs } from 'node:util';

/** The default data size of issue 5. */
export const DOCS_DEFAULT = 250_000;
/** The data size of a quick run. */
export const DOCS_QUICK = 20_000;
/**
 * How long a full or scale run waits, by default, for the machine to fall quiet before it
 * begins (the build before it is enough to make it busy for a minute or two).
 */
export const QUIET_WAIT_SECONDS_DEFAULT = 300;

/** Above this many documents the run is scale mode (docdb alone), as issue 5 asks. */
export const SCALE_MODE_ABOVE_DOCS = 1_000_000;

export interface Options {
  docs: number;
  rounds: number;
  quick: boolean;
  /** Scale mode: docdb alone, lookup, scan and file size from 250,000 documents up. */
  scale: boolean;
  only: Phase | undefined;
  /** Longest wait for a quiet machine before the run begins (0: begin at once). */
  quietWaitSeconds: number;
  /** Time box of one embedded measurement and of its warm-up. */
  embeddedMs: number;
  warmupMs: number;
  /** Updates (and as many deletes) per system per round. */
  writeOps: number;
  /** Length of one served measurement of a point workload, and of its warm-up. */
  servedSeconds: number;
  servedWarmupSeconds: number;
  /** Connections the load generator opens for the point workloads and for bulk inserts. */
  pointConnections: number;
  bulkConnections: number;
  /** Requests of 1,000 documents per bulk measurement. */
  bulkRequests: number;
  /** Whole-collection streams per stream measurement. */
  streamRequests: number;
  /** Time box of one concurrent-writers measurement (embedded), and its warm-up. */
  writersMs: number;
  writersWarmupMs: number;
  /** Length of one served concurrent-writers measurement. */
  writersServedSeconds: number;
  /** Time box of one router measurement. */
  routerSeconds: number;
}

/** The phases of a run, in the order they run; `--only` picks one. */
export const PHASES = ['embedded', 'served', 'writers', 'cluster'] as const;
export type Phase = (typeof PHASES)[number];

const USAGE = `npm run bench -- [options]
  --quick             smoke run of a few minutes (${DOCS_QUICK.toLocaleString('en-US')} documents, 1 round)
  --docs N            documents (default ${DOCS_DEFAULT.toLocaleString('en-US')}); above ${SCALE_MODE_ABOVE_DOCS.toLocaleString('en-US')} runs scale mode
  --rounds N          timed rounds per workload (default 3, at least 1)
  --only embedded|served|writers|cluster   run one phase only
  --scale             scale mode at any size: docdb alone, growth from 250,000 documents up
  --quiet-wait S      wait up to S seconds for the load average to fall to the quiet bound
                      before beginning (default ${QUIET_WAIT_SECONDS_DEFAULT} for a full or scale run, 0 for --quick)
  --help              this text`;

function positiveInteger(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text.replaceAll('_', ''));
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`--${name} takes a positive integer; got ${JSON.stringify(text)}`);
  }
  return n;
}

/** Parses argv; prints the usage and exits on --help or on a bad option. */
export function parseOptions(argv: string[]): Options {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        quick: { type: 'boolean' },
        docs: { type: 'string' },
        rounds: { type: 'string' },
        only: { type: 'string' },
        scale: { type: 'boolean' },
        'quiet-wait': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const quick = values.quick === true;
  const only = values.only as string | undefined;
  if (only !== undefined && !(PHASES as readonly string[]).includes(only)) {
    console.error(`--only takes ${PHASES.join(', ')}; got ${JSON.stringify(only)}\n\n${USAGE}`);
    process.exit(2);
  }
  try {
    const docs = positiveInteger(values.docs as string, 'docs', quick ? DOCS_QUICK : DOCS_DEFAULT);
    const rounds = positiveInteger(values.rounds as string, 'rounds', quick ? 1 : 3);
    const quietWait = values['quiet-wait'] as string | undefined;
    const quietWaitSeconds = Number(quietWait ?? (quick ? 0 : QUIET_WAIT_SECONDS_DEFAULT));
    if (!Number.isInteger(quietWaitSeconds) || quietWaitSeconds < 0) {
      throw new Error(
        `--quiet-wait takes whole seconds (0 or more); got ${JSON.stringify(quietWait)}`,
      );
    }
    return {
      docs,
      rounds,
      quick,
      scale: values.scale === true || docs > SCALE_MODE_ABOVE_DOCS,
      only: only as Phase | undefined,
      quietWaitSeconds,
      embeddedMs: quick ? 300 : 1500,
      warmupMs: quick ? 100 : 500,
      writeOps: quick ? 50 : 300,
      servedSeconds: quick ? 1.5 : 4,
      servedWarmupSeconds: quick ? 0.5 : 1.5,
      pointConnections: 32,
      bulkConnections: 8,
      bulkRequests: quick ? 10 : 50,
      streamRequests: 2,
      writersMs: quick ? 1000 : 3000,
      writersWarmupMs: quick ? 300 : 1000,
      writersServedSeconds: quick ? 1.5 : 4,
      routerSeconds: quick ? 1.5 : 4,
    };
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}
