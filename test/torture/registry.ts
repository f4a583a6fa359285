/**
 * The parts of the torture suite, in the order a run takes them. A new part (crash, disk
 * full, bad input at volume, slow clients, soak, replication faults, partitions, the set workload) is a module
 * exporting a TorturePart (part.ts), added here; the harness needs no other change.
 */

import { badInput } from './bad-input.js';
import { crash } from './crash.js';
import { damagedFiles } from './damaged-files.js';
import { diskFull } from './disk-full.js';
import type { TorturePart } from './part.js';
import { partition } from './partition.js';
import { replicationFaults } from './replication-faults.js';
import { set } from './set.js';
import { slowClients } from './slow-clients.js';
import { soak } from './soak.js';

export const PARTS: readonly TorturePart[] = [
  crash,
  damagedFiles,
  diskFull,
  badInput,
  slowClients,
  replicationFaults,
  partition,
  set,
  soak,
];
