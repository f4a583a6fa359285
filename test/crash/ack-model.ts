/**
 * The harness's model of what the crash writer acknowledged: for every document id, the state
 * its last acknowledged write left, plus the one write still in flight when the writer died
 * (printed as intent, never acknowledged). After a crash, `reconcile` checks the reopened file
 * against it and adopts what it finds for the next cycle. It reads documents; it opens nothing.
 */

import { isDeepStrictEqual } from 'node:util';
import type { AckLine, CrashDoc, IntentLine, WriterLine } from './protocol.js';

/** A document's state: stored with exactly this body, or absent. */
export type DocState = { present: true; doc: CrashDoc } | { present: false };

interface Tracked {
  acked: DocState;
  /** What the acknowledged state came from, for failure messages. */
  ackedBy: string;
  /** The state the in-flight write would leave, if one is in flight. */
  inFlight?: DocState;
  inFlightBy?: string;
}

/** Counts of one cycle's writes, by document. */
export interface CycleCounts {
  /** Writes (operations) acknowledged, refusals included. */
  ackedWrites: number;
  /** Document changes acknowledged: each insert, batch item, replace and delete stored. */
  ackedChanges: number;
  /** Document writes in flight at the kill that could have landed. */
  inFlight: number;
  /** Of those, the ones found on disk. */
  inFlightLanded: number;
  /**
   * Documents found in neither their acknowledged state nor the one their in-flight write
   * would leave: acknowledged writes lost (each is also a problem of `reconcile`).
   */
  lost: number;
}

const ABSENT: DocState = { present: false };

/** Counts of nothing yet. */
export function emptyCounts(): CycleCounts {
  return { ackedWrites: 0, ackedChanges: 0, inFlight: 0, inFlightLanded: 0, lost: 0 };
}

/** Adds one cycle's counts to a run's. */
export function addCounts(total: CycleCounts, counts: CycleCounts): void {
  total.ackedWrites += counts.ackedWrites;
  total.ackedChanges += counts.ackedChanges;
  total.inFlight += counts.inFlight;
  total.inFlightLanded += counts.inFlightLanded;
  total.lost += counts.lost;
}

function present(doc: CrashDoc): DocState {
  return { present: true, doc };
}

function sameState(state: DocState, actual: CrashDoc | undefined): boolean {
  if (!state.present) return actual === undefined;
  return actual !== undefined && isDeepStrictEqual(state.doc, actual);
}

/** A short description of a document for failure messages (long strings cut). */
export function briefDoc(doc: CrashDoc | undefined): string {
  if (!doc) return 'nothing';
  const text = JSON.stringify(doc, (_key, value: unknown) =>
    typeof value === 'string' && value.length > 40
      ? `${value.slice(0, 40)}…(${value.length})`
      : value,
  );
  return text;
}

function describeState(state: DocState): string {
  return state.present ? briefDoc(state.doc) : 'nothing (deleted or never stored)';
}

export class AckModel {
  private readonly tracked = new Map<string, Tracked>();
  /** In-flight inserts with a generated id, by the writer's unique `w` tag. */
  private readonly generated = new Map<string, { doc: CrashDoc; by: string }>();
  private readonly intents = new Map<number, IntentLine>();
  private counts: CycleCounts = emptyCounts();
  private cycle = 0;

  /** Starts a new cycle's counts. */
  beginCycle(cycle: number): void {
    this.cycle = cycle;
    this.counts = emptyCounts();
  }

  get cycleCounts(): CycleCounts {
    return { ...this.counts };
  }

  /** Applies one writer line. Throws when the writer broke the protocol (a writer bug). */
  apply(line: WriterLine): void {
    if ('intent' in line) this.applyIntent(line);
    else if ('ack' in line) this.applyAck(line);
  }

  private label(op: number, what: string): string {
    return `${what} (cycle ${this.cycle}, op ${op})`;
  }

  private startWrite(id: string, state: DocState, by: string): void {
    const entry = this.tracked.get(id);
    if (!entry?.acked.present) throw new Error(`writer wrote ${id}, which it never had`);
    if (entry.inFlight)
      throw new Error(`writer issued a second write for ${id} while one was in flight`);
    entry.inFlight = state;
    entry.inFlightBy = by;
  }

  private startInsert(id: string | undefined, doc: CrashDoc, by: string): void {
    if (id === undefined) {
      this.generated.set(doc.w, { doc, by });
      return;
    }
    const entry = this.tracked.get(id);
    if (entry?.acked.present || entry?.inFlight) throw new Error(`writer reused id ${id}`);
    this.tracked.set(id, {
      acked: ABSENT,
      ackedBy: 'never stored',
      inFlight: present(doc),
      inFlightBy: by,
    });
  }

  private applyIntent(line: IntentLine): void {
    this.intents.set(line.op, line);
    switch (line.intent) {
      case 'insert':
        // A write the unique index must refuse can never land: nothing becomes in flight.
        if (line.expect === 'ok')
          this.startInsert(line.id, line.doc, this.label(line.op, 'insert'));
        return;
      case 'insertMany': {
        const refusedWhole = line.atomic && line.items.some((item) => item.expect === 'reject');
        line.items.forEach((item, i) => {
          if (item.expect !== 'ok' || refusedWhole) return;
          this.startInsert(item.id, item.doc, this.label(line.op, `insertMany item ${i}`));
        });
        return;
      }
      case 'replace':
        if (line.expect === 'ok') {
          this.startWrite(line.id, present(line.doc), this.label(line.op, 'replace'));
        }
        return;
      case 'delete':
        this.startWrite(line.id, ABSENT, this.label(line.op, 'delete'));
        return;
      default:
        line satisfies never;
    }
  }

  private settle(id: string, state: DocState, by: string): void {
    this.tracked.set(id, { acked: state, ackedBy: by });
    this.counts.ackedChanges += 1;
  }

  private applyAck(line: AckLine): void {
    const intent = this.intents.get(line.op);
    if (!intent) throw new Error(`writer acknowledged op ${line.op} it never announced`);
    this.intents.delete(line.op);
    this.counts.ackedWrites += 1;
    switch (line.ack) {
      case 'insert':
        if (intent.intent === 'insert' && intent.id === undefined)
          this.generated.delete(intent.doc.w);
        this.settle(line.id, present(line.doc), this.label(line.op, 'acknowledged insert'));
        return;
      case 'insertMany': {
        if (intent.intent !== 'insertMany') throw new Error(`op ${line.op} changed kind`);
        intent.items.forEach((item, i) => {
          const id = line.ids[i];
          if (item.id === undefined) this.generated.delete(item.doc.w);
          if (id) {
            this.settle(
              id,
              present(item.doc),
              this.label(line.op, `acknowledged insertMany item ${i}`),
            );
          } else if (item.id !== undefined && this.tracked.get(item.id)?.acked.present === false) {
            this.tracked.delete(item.id);
          }
        });
        return;
      }
      case 'replace':
        this.settle(line.id, present(line.doc), this.label(line.op, 'acknowledged replace'));
        return;
      case 'delete':
        this.settle(line.id, ABSENT, this.label(line.op, 'acknowledged delete'));
        return;
      case 'rejected':
        // Refused writes were never in flight; a trace of one shows up as an unexplained
        // document (insert) or a wrong body (replace) in reconcile.
        return;
      default:
        line satisfies never;
    }
  }

  /**
   * Checks the documents found after the crash against the model, then adopts them as the
   * acknowledged state of the next cycle. Each document must be in its acknowledged state or
   * in the state its one in-flight write would leave; every stored document must be explained
   * by an acknowledged or in-flight write.
   */
  reconcile(found: Map<string, CrashDoc>): string[] {
    const problems: string[] = [];
    this.counts.inFlight += this.generated.size;
    for (const [id, entry] of this.tracked) {
      const actual = found.get(id);
      if (entry.inFlight) this.counts.inFlight += 1;
      if (sameState(entry.acked, actual)) {
        // Matches what was acknowledged (an in-flight write left no trace).
      } else if (entry.inFlight && sameState(entry.inFlight, actual)) {
        this.counts.inFlightLanded += 1;
      } else {
        this.counts.lost += 1;
        const inFlight = entry.inFlight
          ? `, or after the in-flight ${entry.inFlightBy} ${describeState(entry.inFlight)}`
          : ' (no write was in flight for it)';
        problems.push(
          `document ${id}: expected ${describeState(entry.acked)} from the ${entry.ackedBy}${inFlight}; ` +
            `the file holds ${briefDoc(actual)}`,
        );
      }
    }
    for (const [id, doc] of found) {
      if (this.tracked.has(id)) continue;
      const pending = this.generated.get(doc.w);
      if (pending && isDeepStrictEqual(pending.doc, doc)) {
        this.counts.inFlightLanded += 1;
        this.generated.delete(doc.w);
      } else if (pending) {
        problems.push(
          `document ${id}: the file holds ${briefDoc(doc)}; the in-flight ${pending.by} wrote ${briefDoc(pending.doc)}`,
        );
      } else {
        problems.push(
          `document ${id}: the file holds ${briefDoc(doc)}, which no acknowledged or in-flight write explains`,
        );
      }
    }
    this.adopt(found);
    return problems;
  }

  /** Takes the file's documents as the acknowledged state of the next cycle. */
  private adopt(found: Map<string, CrashDoc>): void {
    this.tracked.clear();
    this.generated.clear();
    this.intents.clear();
    for (const [id, doc] of found)
      this.tracked.set(id, {
        acked: present(doc),
        ackedBy: `state verified after cycle ${this.cycle}`,
      });
  }
}
