/**
 * What one SELECT may spend: time, and heap while it holds rows. A statement runs on the
 * event loop from its first row to its last, so one that reads for minutes stops every other
 * request of its process, and one that holds every pairing of a JOIN for its ORDER BY ends the
 * process when V8's heap is full. The operators tick the budget once per row they read or make;
 * every CHECK_EVERY ticks it looks at the clock and the heap and stops the statement with
 * ERR_QUERY_TIMEOUT or ERR_QUERY_MEMORY. Everything it held is garbage then, and the process
 * goes on serving.
 *
 * The heap in use counts garbage not yet collected, so it says nothing alone: right after one
 * statement was stopped, the next found its rows still counted. When the heap in use passes
 * the bound, the process's HeapWatch collects it fully and looks again: only a live heap over
 * QUERY_HEAP_LIVE_FRACTION_MAX of the old generation's limit stops the statement. After a
 * collection, the next one waits until the heap in use is halfway from what was live to the
 * limit (as V8 sets its own next collection), so a large live heap is not collected at every
 * look, and small statements go on while something else holds the heap.
 */

import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { dbError } from '../../errors/index.js';
import { decodedBytes } from '../../storage/index.js';
import { QUERY_HEAP_LIVE_FRACTION_MAX } from '../../util/index.js';

/** Rows between two looks at the clock and the heap (a look costs about 0.3 µs). */
const CHECK_EVERY = 256;
/** Bytes of records decoded whole between two looks, whatever the rows (large documents). */
const CHECK_EVERY_BYTES = 8 * 1024 * 1024;

const MiB = 1024 * 1024;

/**
 * V8's young generation as 64-bit Node 20 sizes it (three semi-spaces of 16 MiB), which
 * `heap_size_limit` counts beside the old generation's limit: a process ends when its old
 * generation is full, whatever room the young one has (measured: `--max-old-space-size=96`
 * gives a `heap_size_limit` of 144 MiB and ends at about 95 MiB in use).
 */
const YOUNG_GENERATION_BYTES = 48 * MiB;

/** What a statement may spend; what is left out is not bounded. */
export interface QueryLimits {
  /** Milliseconds a SELECT may run before ERR_QUERY_TIMEOUT. */
  timeoutMs?: number | undefined;
}

/** The heap in use and the old generation's limit (what ends the process), in bytes. */
export interface HeapUse {
  used: number;
  limit: number;
}

function v8HeapUse(): HeapUse {
  const stats = getHeapStatistics();
  const whole = stats.heap_size_limit;
  return {
    used: stats.used_heap_size,
    limit: Math.max(whole - YOUNG_GENERATION_BYTES, whole / 2),
  };
}

let gc: (() => void) | undefined;

/**
 * A full collection, through V8's `gc` (exposed on first use, as Jest's leak check does). A
 * runtime that refuses to expose it leaves the heap as it is: the statement is then judged on
 * the heap in use.
 */
function fullCollection(): void {
  if (!gc) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) gc = exposed;
    else {
      try {
        setFlagsFromString('--expose-gc');
        gc = runInNewContext('gc') as () => void;
      } catch {
        gc = () => {};
      }
    }
  }
  gc();
}

function shownBytes(bytes: number): string {
  return `${Math.round(bytes / MiB).toLocaleString('en-US')} MiB`;
}

function shownMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** A process's watch on its heap, shared by its statements. */
export class HeapWatch {
  /** The heap in use past which the next look collects first; unset: the bound itself. */
  private collectAbove: number | undefined;

  constructor(
    private readonly use: () => HeapUse = v8HeapUse,
    private readonly collect: () => void = fullCollection,
  ) {}

  /** Throws ERR_QUERY_MEMORY when the live heap is over the bound. */
  check(): void {
    const { used, limit } = this.use();
    const bound = limit * QUERY_HEAP_LIVE_FRACTION_MAX;
    if (used <= (this.collectAbove ?? bound)) return;
    this.collect();
    const live = this.use().used;
    // Halfway from what is live to the limit, whatever the verdict: a heap kept nearly full by
    // something else is not collected at every look of every statement, and a statement that
    // grows it is still stopped at the next collection.
    this.collectAbove = Math.max(bound, (live + limit) / 2);
    if (live > bound) {
      throw dbError(
        'ERR_QUERY_MEMORY',
        'heapFull',
        { used: shownBytes(live), limit: shownBytes(limit) },
        { heapLiveBytes: live, heapLimitBytes: limit },
      );
    }
  }
}

/** The watch of this process's own heap. */
const processHeap = new HeapWatch();

/** One statement's budget: started when the statement starts, ticked per row. */
export class StatementBudget {
  private ticks = 0;
  private readonly deadline: number;
  /** `decodedBytes.total` past which the next tick looks. */
  private lookAtBytes = decodedBytes.total + CHECK_EVERY_BYTES;

  constructor(
    private readonly limits: QueryLimits = {},
    /** The heap to watch; tests give their own. */
    private readonly heap: HeapWatch = processHeap,
  ) {
    const { timeoutMs } = limits;
    this.deadline =
      timeoutMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + timeoutMs;
  }

  /**
   * One row read or made; every CHECK_EVERY of them, and after every CHECK_EVERY_BYTES of
   * records the process decoded, the clock and the heap are looked at.
   */
  tick(): void {
    if (++this.ticks % CHECK_EVERY === 0 || decodedBytes.total > this.lookAtBytes) this.check();
  }

  /** Stops the statement when its time is up or the live heap is nearly full. */
  check(): void {
    this.lookAtBytes = decodedBytes.total + CHECK_EVERY_BYTES;
    if (performance.now() > this.deadline) {
      throw dbError('ERR_QUERY_TIMEOUT', 'timedOut', {
        limit: shownMs(this.limits.timeoutMs as number),
      });
    }
    this.heap.check();
  }
}
