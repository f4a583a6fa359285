/** The SQL planner: access paths and plan strings. Pure; never imports storage. */

export * from './planner.js';
