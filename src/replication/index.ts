/** Replication: the wire protocol, the leader's listener, the follower's loop, the node's role transitions. */

export type { AutoFailoverView, FollowerStatus, ReplicationStatus } from '../types/index.js';
export { compareLogs, type LogHistorySource } from './compare.js';
export { encodeFrame, FrameDecoder } from './frames.js';
export { checkProof, newNonce, proofOf } from './handshake.js';
export type { ReplicationCounters, ReplicationLog } from './log.js';
export type { ReplicationGate, ReplicationPort, ReplicationStorage } from './port.js';
export { type Message, PROTOCOL_VERSION, parseMessage } from './protocol.js';
export { Replication, type ReplicationOptions } from './replication.js';
export { ROLLBACK_DIR } from './rollback.js';
