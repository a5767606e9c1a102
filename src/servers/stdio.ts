import type { Transport } from "@modelcontextprotocol/server";
import { serveStdio as serveBothEras, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { ServerFactory } from "./http.js";

export interface StdioServerHandle {
  /** Settles when the client goes away (stdin ends) or close() is called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves one server over this process's stdin/stdout; stdout then carries only the protocol. The
 * client's first message picks the era (an `initialize` for 2025-11-25, a request carrying the
 * 2026-07-28 `_meta` envelope, `server/discover` among them, for the new one) and the connection
 * keeps that era, served by one server from the factory. `extend`, when given, gets the connection's transport once
 * the entry has set its handlers, to serve what the entry does not (it wraps them).
 */
export async function serveStdio(factory: ServerFactory, extend?: (wire: Transport) => void): Promise<StdioServerHandle> {
  const wire = new StdioServerTransport();
  const handle = serveBothEras(() => factory(), { transport: wire });
  // The entry set its own close handling on the transport just now; ours runs after it. The
  // transport closes itself when stdin ends (a client that exits closes our stdin).
  const entryClosed = wire.onclose;
  const closed = new Promise<void>((resolve) => {
    wire.onclose = () => {
      entryClosed?.();
      resolve();
    };
  });
  extend?.(wire);
  return { closed, close: () => handle.close() };
}
