/** The SQL executor: runs plan trees over storage, one executor per node kind. */

export { accessDocuments, accessRow, accessRows, documentTest } from './access.js';
export { aggregateRows } from './aggregate.js';
export { type QueryLimits, StatementBudget } from './budget.js';
export type { ExecContext, Row } from './context.js';
export { execute } from './execute.js';
export { quotedFieldWarnings } from './quoted-fields.js';
export { runSelect, type SelectOptions, type SelectResult } from './select.js';
export { type StreamedSelect, streamSelect } from './stream.js';
export { viewOf } from './view.js';
export {
  runCreateIndex,
  runDelete,
  runDropIndex,
  runInsert,
  runUpdate,
  type WriteOutcome,
} from './write.js';
