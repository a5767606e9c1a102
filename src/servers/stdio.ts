import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { ServerFactory } from "./http.js";

export interface StdioServerHandle {
  /** Settles when the client goes away (stdin ends) or close() is called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves one server over this process's stdin/stdout; stdout then carries only the protocol. */
export async function serveStdio(factory: ServerFactory): Promise<StdioServerHandle> {
  const server = factory();
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  await server.connect(transport);
  // The SDK's transport does not watch for end of input; a client that exits closes our stdin.
  const onEnd = (): void => void server.close();
  process.stdin.once("end", onEnd);
  void closed.then(() => process.stdin.off("end", onEnd));
  return { closed, close: () => server.close() };
}
