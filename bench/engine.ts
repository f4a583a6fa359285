/**
 * The docdb under test: the compiled package in dist/, as applications run it, not the
 * TypeScript sources through tsx (its transform made the unindexed filter 1.6× slower when
 * measured). `npm run bench` builds dist/ first. The only importer of docdb in the harness.
 */

export {
  type Collection,
  type Database,
  type NodeApi,
  open,
  VERSION,
} from '../dist/index.js';
export { connect } from '../dist/client/index.js';
export { connectCluster } from '../dist/cluster/cluster-client.js';
export { resolveConfig, startNode } from '../dist/server/index.js';
export { seededRandom } from '../dist/util/index.js';
