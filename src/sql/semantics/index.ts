/**
 * Query semantics in one place (DESIGN §4): the WHERE comparison, the ORDER BY comparison of
 * sort keys, the group, DISTINCT and join keys, and the aggregates. Used by the executor, the
 * finds of the embedded API and REST, and later the router. Pure: imports only `util/`,
 * `errors/` and the AST.
 */

export * from './aggregates.js';
export * from './compare.js';
export * from './evaluate.js';
export * from './values.js';
export * from './keys.js';
export * from './order.js';
export * from './partials.js';
export * from './window.js';
