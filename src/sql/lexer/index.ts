/** The SQL lexer. Pure. */

export { Lexer, syntaxError, type Token, type TokenKind, tokenize } from './lexer.js';
