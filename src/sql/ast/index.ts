/** The SQL AST types. Pure. */

export * from './ast.js';
export * from './keywords.js';
export * from './print.js';
