/** The REST server: the Fastify app factory and the node that runs it. */

export { type AppOptions, buildApp, type RouteContext } from './app.js';
export {
  NODE_DEFAULTS,
  type NodeConfig,
  type ReplicationSettings,
  type SettingSource,
  type TlsSettings,
} from './node-config.js';
export { describeSettings, type RunningNode, type StartOptions, startNode } from './node.js';
export { type NodeStatus, newNodeStatus, requireWritable, type Role } from './node-status.js';
