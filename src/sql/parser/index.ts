/** The SQL parser. Pure. */

export { SQL_KEYWORDS } from '../ast/index.js';
export { checkParams } from './params.js';
export { type Parsed, parse } from './parser.js';
export { type PreparedEntry, PreparedStatements, statementHandle } from './prepared.js';
