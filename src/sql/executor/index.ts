/** The SQL executor: runs plans over storage. */

export { evaluate, likeRegex, type Row, type Truth, resolveValue } from './evaluate.js';
export {
  candidates,
  matchingRows,
  planSelect,
  runSelect,
  type SelectPlan,
  type Source,
  viewOf,
} from './select.js';
export { type StreamedSelect, streamSelect } from './stream.js';
export {
  runCreateIndex,
  runDelete,
  runDropIndex,
  runInsert,
  runUpdate,
  type WriteOutcome,
} from './write.js';
