/**
 * An address where a connection is refused and nothing can ever answer: a privileged port on
 * the loopback. A test that stands for a node that is down must not use the port of a node it
 * closed: another worker's `listen(0)`, or any outgoing connection's local port, may take that
 * port again at once (both come from the ephemeral range, 32768 and up on Linux), and a request
 * then waits on whoever holds it until its timeout. Ports below 1024 come from neither, and
 * tests bind no fixed port.
 */
export function refusedUrl(port = 1): string {
  if (!Number.isInteger(port) || port < 1 || port > 1023)
    throw new Error(`refusedUrl: port ${port} is not a privileged port (1 to 1023)`);
  return `http://127.0.0.1:${port}`;
}
