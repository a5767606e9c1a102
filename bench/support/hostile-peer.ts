/**
 * The hostile HTTP MCP server of the tests in a process of its own, for the soak: its busy
 * writing must not slow the process that times the pings. Prints `{"url", "sseUrl"}` once
 * listening; runs until killed.
 *   node --import tsx bench/support/hostile-peer.ts '{"endlessGet": true}'
 */
import { startHostileServer } from "../../test/support/hostile-mcp-http.js";

const server = await startHostileServer(JSON.parse(process.argv[2] ?? "{}"));
process.stdout.write(`${JSON.stringify({ url: server.url, sseUrl: server.sseUrl })}\n`);
