/**
 * What every storage part works with: the file's handles, its catalog, its change log and its
 * document codec, composed once by the Store. Parts are functions of this context and, for
 * writes, of a transaction's state (txn-state.ts): no part keeps hidden write state.
 */

import type { Catalog } from './catalog-state.js';
import type { ChangeLog } from './change-log.js';
import type { DocumentCodec } from './codec/index.js';
import type { Handles } from './handles.js';

export interface StoreContext {
  readonly file: string;
  readonly readOnly: boolean;
  readonly handles: Handles;
  readonly catalog: Catalog;
  readonly log: ChangeLog;
  readonly docs: DocumentCodec;
}
