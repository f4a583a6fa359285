/** The SQL layer: text → tokens → AST → plan → rows, with its semantics in one module. */

export * from './ast/index.js';
export * from './executor/index.js';
export { checkParams, type Parsed, parse, SQL_KEYWORDS } from './parser/index.js';
export * from './planner/index.js';
export * from './semantics/index.js';
