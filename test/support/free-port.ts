/** TEST INFRASTRUCTURE: ports for tests. */
import { createServer } from "node:net";

/** A loopback port nothing listens on (for "connection refused"). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
