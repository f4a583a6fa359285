/**
 * The page check a data file passes before docdb serves it. LMDB keeps no checksums and trusts
 * every page header it reads: a flipped size or bound makes it copy past the map and the
 * process dies with a signal, on whatever read first touches the page. So before LMDB maps a
 * file, its whole structure is walked with plain file reads (page-walk.ts), and a file with a
 * damaged tree is refused with ERR_STORAGE_CORRUPT naming what holds the damage. The walk reads
 * every page once (about 0.45 s per 200 MB here), which is why the check can be turned off.
 *
 * A reader opening a file that a live process writes skips the walk: that process checked the
 * file when it opened it, and pages it frees may be rewritten under a walk that takes seconds.
 */

import * as fs from 'node:fs';
import { type DbError, dbError } from '../errors/index.js';
import type { CollectionDef } from './catalog.js';
import { checkFileHead } from './file-header.js';
import { type PageWalk, walkPages } from './page-walk.js';
import { lockHolder } from './writer-lock.js';

/** When the page check runs: at every open (the default), or never. */
export type PageCheck = 'open' | 'off';

/** The trees the Store reads as it opens; damage in them refuses the file outright. */
const OPENING_TREES = ['catalog', 'changes'];

/** Faults listed in a refusal's message; the details and `docdb verify` have all of them. */
const FAULTS_SHOWN = 3;

function listFaults(walk: PageWalk): string {
  const shown = walk.faults.slice(0, FAULTS_SHOWN).map((f) => f.message);
  const more = walk.faults.length - shown.length;
  return `${shown.join('; ')}${more > 0 ? `; ${more} more` : ''}`;
}

function refusal(file: string, what: string, walk: PageWalk): DbError {
  return dbError(
    'ERR_STORAGE_CORRUPT',
    'pagesDamaged',
    { file, what, faults: listFaults(walk) },
    { file, faults: walk.faults.length, trees: [...walk.damagedTrees] },
  );
}

/**
 * Walks an existing file's pages (unless `check` is off or a live writer holds the file) and
 * returns the walk, or undefined when no walk was made. Throws ERR_STORAGE_TRUNCATED for a cut
 * file, and ERR_STORAGE_CORRUPT when the pages docdb reads as it opens (the list of trees,
 * the free list, the catalog, the change log) are damaged: nothing of such a file is read.
 */
export function walkBeforeOpen(
  file: string,
  check: PageCheck,
  readOnly: boolean,
): PageWalk | undefined {
  // A file that does not exist yet (a new database) has nothing to walk.
  if (!fs.existsSync(file)) return undefined;
  checkFileHead(file);
  if (check === 'off' || (readOnly && lockHolder(file))) return undefined;
  const walk = walkPages(file);
  if (walk.mainDamaged) throw refusal(file, 'the pages that list its trees', walk);
  const opening = OPENING_TREES.filter((tree) => walk.damagedTrees.has(tree));
  if (opening.length > 0) throw refusal(file, `the pages of its ${opening.join(' and ')}`, walk);
  return walk;
}

/**
 * The refusal of a file whose collection or index trees are damaged, naming each by the
 * catalog (read once the opening trees passed the walk).
 */
export function damagedTreesError(
  file: string,
  walk: PageWalk,
  collections: Iterable<CollectionDef>,
): DbError {
  const names: string[] = [];
  for (const tree of walk.damagedTrees) names.push(treeName(tree, collections));
  return refusal(file, `the pages of ${names.join(', ')}`, walk);
}

function treeName(tree: string, collections: Iterable<CollectionDef>): string {
  for (const def of collections) {
    if (def.dbName === tree) return `collection '${def.name}'`;
    const index = def.indexes.find((i) => i.dbName === tree);
    if (index) return `index '${index.name}' of collection '${def.name}'`;
  }
  return `tree '${tree}'`;
}
