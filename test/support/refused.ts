/**
 * Where a connection is refused and nothing can ever answer: a privileged port on the
 * loopback. A test that stands for a node that is down must not use the port of a server it
 * closed: another worker's `listen(0)`, or any outgoing connection's local port, may take that
 * port again at once (both come from the ephemeral range, 32768 and up on Linux), and a
 * request then waits on whoever holds it until its timeout. Ports below 1024 come from
 * neither, and tests bind no fixed port.
 */
export const REFUSED_PORT = 1;

/** `http://127.0.0.1:1`: see REFUSED_PORT. */
export function refusedUrl(): string {
  return `http://127.0.0.1:${REFUSED_PORT}`;
}
