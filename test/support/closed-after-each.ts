import type { Server } from "node:http";
import { afterEach } from "vitest";

/** A list for the HTTP servers a test starts: after each test, each is closed, its open connections with it. */
export function serversClosedAfterEach(): Server[] {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map((server) => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      }),
    );
  });
  return servers;
}
