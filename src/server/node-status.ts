/**
 * What the server changes of the node: as a live view of the engine's write gate
 * (engine/write-gate.ts), its replication role, read-only mode and leader (its name and
 * uptime are its database's, `health()`). The gate, not the server, refuses writes; setting a field here sets the gate.
 */

import type { GateState, Role, WriteGate } from '../engine/index.js';

export type { Role };

export type NodeStatus = GateState;

export function newNodeStatus(): NodeStatus {
  return { role: 'none', readOnly: false };
}

/**
 * Makes `status` a view of `gate`: what the status held when bound goes to the gate, and from
 * then on its role, readOnly and leader read and write the gate's.
 */
export function bindStatus(status: NodeStatus, gate: WriteGate): NodeStatus {
  const { role, readOnly, leader } = status;
  gate.setRole(role);
  gate.setReadOnly(readOnly);
  gate.setLeader(leader);
  Object.defineProperties(status, {
    role: {
      get: () => gate.role,
      set: (value: Role) => gate.setRole(value),
      enumerable: true,
      configurable: true,
    },
    readOnly: {
      get: () => gate.readOnly,
      set: (value: boolean) => gate.setReadOnly(value),
      enumerable: true,
      configurable: true,
    },
    leader: {
      get: () => gate.leader,
      set: (value: string | undefined) => gate.setLeader(value),
      enumerable: true,
      configurable: true,
    },
  });
  return status;
}
