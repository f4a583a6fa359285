/** The SQL parser. Pure. */

export { type Parsed, parse, SQL_KEYWORDS } from './parser.js';
