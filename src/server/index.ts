/** The REST server: the Fastify app factory and the node that runs it. */

export { type AppOptions, buildApp } from './app.js';
export {
  type ResolvedConfig,
  type ResolveInput,
  resolveConfig,
  type SettingKey,
} from './config.js';
export { listenQuietly } from './listen.js';
export { describeSettings, type RunningNode, type StartOptions, startNode } from './node.js';
export {
  NODE_DEFAULTS,
  type NodeConfig,
  type ReplicationSettings,
  type SettingSource,
  type TlsSettings,
} from './node-config.js';
export { bindStatus, type NodeStatus, newNodeStatus, type Role } from './node-status.js';
export { READER_PROCESS_ENV } from './settings.js';
export type { RouteContext } from './route-context.js';
export { buildRouterApp, type RouterAppOptions } from './router-app.js';
export {
  CONFIG_FLAG,
  defaultText,
  flagKey,
  SETTING_NAMES,
  SETTINGS,
  type ServeFlags,
  type SettingName,
  type SettingSpec,
  settingSpec,
} from './settings.js';
