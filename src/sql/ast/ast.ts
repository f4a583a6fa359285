/**
 * The SQL AST: what the parser produces and the planner consumes. Every node is a
 * discriminated union on `kind`; switches over them end in an exhaustive `never` check.
 * Pure data: no storage, no evaluation.
 */

/** A JSON value as it appears in SQL literals, SET values and INSERT documents. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A position in the SQL text (1-based line and column). */
export interface Position {
  line: number;
  column: number;
}

/** A field path as written (`passengers[0].lastName`), resolved against collections later. */
export interface PathRef {
  kind: 'path';
  text: string;
  at: Position;
}

/** A literal value. */
export interface Literal {
  kind: 'literal';
  value: JsonValue;
}

/** A `?` placeholder, numbered from 0 in order of appearance. */
export interface Param {
  kind: 'param';
  index: number;
  at: Position;
}

export type Value = Literal | Param;
export type Operand = PathRef | Value;

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** The comparison of one bound of a find range. */
export type RangeOp = '<' | '<=' | '>' | '>=';

/**
 * A boolean condition of WHERE or ON. `IN` is lowered to an OR of equalities (rule 2). AND and
 * OR are n-ary (flat lists), so a long IN list or AND chain is a wide node, not a deep tree.
 *
 * `match` and `within` are the finds of the embedded API and of REST by-key lookups, built by
 * the engine and never by the parser (SQL text has no form for them). Their path may hold
 * `[*]`: the condition then holds when it holds for some element.
 * - `match`: some value at the path is a scalar equal to `value`; null matches null and a
 *   missing value (as IS NULL does); an array or object value matches nothing.
 * - `within`: some one value at the path satisfies every bound (a value of its own type).
 */
export type Condition =
  | { kind: 'compare'; op: CompareOp; left: Operand; right: Operand }
  | { kind: 'like'; path: PathRef; pattern: Value; caseInsensitive: boolean; negated: boolean }
  | { kind: 'isNull'; path: PathRef; negated: boolean }
  | { kind: 'and'; conditions: Condition[] }
  | { kind: 'or'; conditions: Condition[] }
  | { kind: 'not'; condition: Condition }
  | { kind: 'match'; path: PathRef; value: Value }
  | { kind: 'within'; path: PathRef; bounds: Array<{ op: RangeOp; value: Value }> };

export type AggregateFn = 'COUNT' | 'SUM' | 'AVG' | 'MIN' | 'MAX';

/** One item of a SELECT list. `name` is the result key: the alias or the normalised text. */
export type SelectItem =
  | { kind: 'column'; path: PathRef; name: string }
  | { kind: 'aggregate'; fn: AggregateFn; arg: PathRef | '*'; name: string };

export interface Join {
  collection: string;
  left: PathRef;
  right: PathRef;
}

export interface OrderItem {
  path: PathRef;
  descending: boolean;
}

export interface SelectStatement {
  kind: 'select';
  distinct: boolean;
  /** `*` or the listed items. */
  items: '*' | SelectItem[];
  from: string;
  joins: Join[];
  where: Condition | undefined;
  groupBy: PathRef[];
  orderBy: OrderItem[];
  limit: Value | undefined;
  offset: Value | undefined;
}

export interface InsertStatement {
  kind: 'insert';
  collection: string;
  /** One document or several; a `?` stands for a document or an array of them. */
  documents: Array<Literal | Param>;
}

export interface UpdateStatement {
  kind: 'update';
  collection: string;
  assignments: Array<{ path: PathRef; value: Value }>;
  where: Condition | undefined;
}

export interface DeleteStatement {
  kind: 'delete';
  collection: string;
  where: Condition | undefined;
}

export interface CreateIndexStatement {
  kind: 'createIndex';
  name: string;
  collection: string;
  paths: string[];
  unique: boolean;
}

export interface DropIndexStatement {
  kind: 'dropIndex';
  name: string;
  collection: string;
}

export type Statement =
  | SelectStatement
  | InsertStatement
  | UpdateStatement
  | DeleteStatement
  | CreateIndexStatement
  | DropIndexStatement;

/** Fails to compile when a switch over a union misses a case. */
export function assertNever(value: never): never {
  throw new Error(`unhandled node: ${JSON.stringify(value)}`);
}
