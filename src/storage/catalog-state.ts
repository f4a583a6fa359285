/**
 * The catalog as this process knows it: node metadata, collection records with their index
 * definitions, and the shared document structures, read from the `catalog` tree. Reads see
 * the committed state, or a write transaction's staged changes over it; writes stage their
 * records in the transaction and become the committed state only when its batch commits.
 */

import { dbError } from '../errors/index.js';
import {
  type CollectionDef,
  FORMAT_VERSION,
  FORMAT_VERSIONS_READ,
  type NodeMeta,
} from './catalog.js';
import { decodeValue, encodeValue, type Structure } from './codec/index.js';
import type { Handles } from './handles.js';
import { valueInPlace } from './lmdb-env.js';
import type { TxnState } from './txn-state.js';

const META_KEY = Buffer.from('meta');
const STRUCTURES_KEY = Buffer.from('structures');
const COLLECTION_PREFIX = 'c/';

/** What loading the catalog read besides collections. */
export interface LoadedCatalog {
  structures: Structure[];
}

export class Catalog {
  private committedMeta!: NodeMeta;
  /** The meta record's bytes last found to hold this catalog's generation (changedOnDisk). */
  private seenMeta: Buffer | undefined;
  private defs = new Map<string, CollectionDef>();
  private versionCounter = 0;

  constructor(
    private readonly handles: Handles,
    private readonly file: string,
    private readonly readOnly: boolean,
  ) {}

  /** Reads everything from the file (at open, after a failed commit, when another process changed it). */
  load(): LoadedCatalog {
    this.seenMeta = undefined;
    const rawMeta = this.handles.catalog.get(META_KEY);
    if (rawMeta) {
      const meta = decodeValue<NodeMeta>(rawMeta);
      if (!FORMAT_VERSIONS_READ.includes(meta.format)) {
        throw dbError('ERR_STORAGE_FORMAT', 'unreadableFormat', {
          file: this.file,
          format: meta.format,
          formatsRead: FORMAT_VERSIONS_READ.join(' and '),
        });
      }
      this.committedMeta = meta;
    } else {
      this.committedMeta = emptyMeta();
    }
    // A file of an older format this build reads is marked as the current one on the first
    // writing open, so an older build cannot misread what this one writes (ADR 0008).
    if (!this.readOnly && (!rawMeta || this.committedMeta.format !== FORMAT_VERSION)) {
      this.committedMeta = { ...this.committedMeta, format: FORMAT_VERSION };
      const meta = this.committedMeta;
      this.handles.env.transactionSync(() =>
        this.handles.catalog.putSync(META_KEY, encodeValue(meta)),
      );
    }
    const defs = new Map<string, CollectionDef>();
    const start = Buffer.from(COLLECTION_PREFIX);
    const end = Buffer.from('c0');
    for (const { value } of this.handles.catalog.getRange({ start, end })) {
      const def = decodeValue<CollectionDef>(value);
      defs.set(def.name, def);
    }
    this.defs = defs;
    this.versionCounter++;
    const structures = this.handles.catalog.get(STRUCTURES_KEY);
    return { structures: structures ? decodeValue<Structure[]>(structures) : [] };
  }

  /** The committed node metadata. */
  get meta(): NodeMeta {
    return this.committedMeta;
  }

  /**
   * A number that changes whenever a collection or index definition changes: plans cached
   * under one version are still right while it holds.
   */
  get version(): number {
    return this.versionCounter;
  }

  /**
   * True when another process changed the catalog since this one last read it. A reader asks
   * before every read, so the meta record is decoded only when its bytes differ from the
   * last ones seen under this catalog (they change on trims and term changes, not on writes).
   * The bytes are compared where LMDB holds them and copied only when they differ: a copy per
   * read was half of a reader's look (issue 25).
   */
  changedOnDisk(): boolean {
    const current = valueInPlace(this.handles.catalog, META_KEY);
    if (current !== undefined && this.seenMeta?.equals(current)) return false;
    const raw = current && Buffer.from(current);
    const generation = raw ? (decodeValue<NodeMeta>(raw).catalogGeneration ?? 0) : 0;
    const changed = generation !== (this.committedMeta.catalogGeneration ?? 0);
    this.seenMeta = changed ? undefined : raw;
    return changed;
  }

  /** A collection's record (canonical name), as committed or as `txn` left it. */
  get(name: string, txn?: TxnState): CollectionDef | undefined {
    const staged = txn?.defs.get(name);
    if (staged !== undefined) return staged ?? undefined;
    return this.defs.get(name);
  }

  /** Every collection record, as committed or as `txn` left them. */
  all(txn?: TxnState): Map<string, CollectionDef> {
    if (!txn || txn.defs.size === 0) return this.defs;
    const merged = new Map(this.defs);
    for (const [name, def] of txn.defs) {
      if (def) merged.set(name, def);
      else merged.delete(name);
    }
    return merged;
  }

  /** Canonical names of every collection, sorted. */
  names(txn?: TxnState): string[] {
    return [...this.all(txn).keys()].sort();
  }

  // ---- writes, staged in a transaction -------------------------------------------------

  /** Stores a collection record. */
  save(txn: TxnState, def: CollectionDef): void {
    this.handles.catalog.putSync(Buffer.from(COLLECTION_PREFIX + def.name), encodeValue(def));
    txn.defs.set(def.name, def);
    this.markChanged(txn);
  }

  /** Removes a collection record. */
  remove(txn: TxnState, name: string): void {
    this.handles.catalog.removeSync(Buffer.from(COLLECTION_PREFIX + name));
    txn.defs.set(name, null);
    this.markChanged(txn);
  }

  /** Replaces the node metadata. */
  saveMeta(txn: TxnState, meta: NodeMeta): void {
    txn.meta = meta;
    this.handles.catalog.putSync(META_KEY, encodeValue(meta));
  }

  /**
   * Writes the node metadata again, unchanged, in a transaction of its own: a commit that
   * changes nothing (file-cap.ts, settleFreedPages).
   */
  rewriteMeta(): void {
    const raw = this.handles.catalog.get(META_KEY) as Buffer | undefined;
    if (raw === undefined) return;
    const bytes = Buffer.from(raw);
    this.handles.env.transactionSync(() => this.handles.catalog.putSync(META_KEY, bytes));
  }

  /** A fresh sub-database name (`c<N>` or `i<N>`); numbers are never reused. */
  allocateName(txn: TxnState, prefix: 'c' | 'i'): string {
    const name = `${prefix}${txn.meta.nextDbId}`;
    this.saveMeta(txn, { ...txn.meta, nextDbId: txn.meta.nextDbId + 1 });
    return name;
  }

  /** Stores the shared document structures in a write transaction. */
  saveStructures(txn: TxnState, structures: Structure[]): void {
    this.handles.catalog.putSync(STRUCTURES_KEY, encodeValue(structures));
    this.markChanged(txn);
  }

  /** Marks a catalog change for readers in other processes (NodeMeta.catalogGeneration). */
  markChanged(txn: TxnState): void {
    this.saveMeta(txn, {
      ...txn.meta,
      catalogGeneration: (txn.meta.catalogGeneration ?? 0) + 1,
    });
  }

  /** Makes a committed transaction's records the committed state. */
  commit(txn: TxnState): void {
    for (const [name, def] of txn.defs) {
      if (def) this.defs.set(name, def);
      else this.defs.delete(name);
    }
    if (txn.defs.size > 0) this.versionCounter++;
    this.committedMeta = txn.meta;
  }
}

function emptyMeta(): NodeMeta {
  return {
    format: FORMAT_VERSION,
    term: 1,
    seqFloor: 0,
    nextDbId: 1,
    createdAt: new Date().toISOString(),
  };
}
