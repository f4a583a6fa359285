/** The SQL parser. Pure. */

export { type Parsed, parse } from './parser.js';
