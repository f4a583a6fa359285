/** The SQL planner: access paths, plan trees and plan strings. Pure; never imports storage. */

export * from './access.js';
export * from './bind.js';
export * from './plan.js';
export * from './resolve.js';
export * from './select.js';
export * from './write.js';
