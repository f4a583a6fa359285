/** What every screen knows once signed in: the node's health and whether it is a router. */

'use client';

import { createContext, useContext } from 'react';
import type { HealthBody } from 'docdb/client';

export interface Session {
  health: HealthBody;
  /** Served by `docdb router`: the Cluster screen shows, node-only screens hide. */
  isRouter: boolean;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in shell');
  return session;
}
