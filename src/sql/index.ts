/** The SQL layer: text → tokens → AST → plan → rows, with its semantics in one module. */

export * from './ast/index.js';
export * from './executor/index.js';
export {
  checkParams,
  type Parsed,
  type PreparedEntry,
  PreparedStatements,
  parse,
  SQL_KEYWORDS,
  statementHandle,
} from './parser/index.js';
export * from './planner/index.js';
export * from './semantics/index.js';
