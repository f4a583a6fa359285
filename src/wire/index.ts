/**
 * The wire: a router's pipelined, multiplexed binary connection to a node (docs/ARCHITECTURE.md,
 * "The wire"). The messages and limits, the router's connection pool; the node's side is
 * server/wire.ts. It imports errors, util, types and replication's frames only.
 */

export { WireConnection } from './connection.js';
export { FrameWriter } from './frame-writer.js';
export {
  NO_WIRE,
  WIRE_ASK_AGAIN_MS,
  WIRE_CONNECTIONS_DEFAULT,
  WirePool,
  type WirePoolOptions,
} from './pool.js';
export {
  idOf,
  parseRequest,
  WIRE_ANSWER_PART_BYTES,
  WIRE_BODY_BYTES_HEADER,
  WIRE_ENVELOPE_BYTES,
  WIRE_IN_FLIGHT_MAX,
  WIRE_OPS,
  WIRE_PATH,
  WIRE_PROTOCOL,
  WIRE_ROWS_CHARS_MAX,
  type WireAnswer,
  type WireOp,
  type WireReply,
  type WireRequest,
} from './protocol.js';
