/**
 * docdb's REST server as the served phase runs it: `startNode` on the data directory the
 * embedded phase loaded, in its own process like any deployment, stopped with SIGTERM
 * (graceful: finish requests, flush, close). Usage: docdb-server.ts <dataDir> <port>
 */

import { startNode } from '../engine.js';

async function main(): Promise<void> {
  const [dataDir, portText] = process.argv.slice(2);
  if (!dataDir || !portText) throw new Error('usage: docdb-server.ts <dataDir> <port>');
  const node = await startNode(
    { nodeName: 'bench', port: Number(portText), dataDir, bindAll: false },
    { log: false, handleSignals: false },
  );
  process.once('SIGTERM', () => {
    node.close().finally(() => process.exit(0));
  });
  process.stdout.write(`${JSON.stringify({ ready: true, port: Number(portText) })}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
