/**
 * TEST INFRASTRUCTURE: a process holding a hub, for tests that kill toolbridge outright.
 *   node --import tsx hub-process.ts '<servers as JSON>' LOGFILE
 * Prints "ready" once the servers are up, then waits to be killed.
 */
import { Hub } from "../../src/mcp/hub.js";

const [servers = "{}", stderrLogFile] = process.argv.slice(2);
await Hub.connect(JSON.parse(servers), stderrLogFile ? { stderrLogFile } : {});
process.stdout.write("ready\n");
setInterval(() => {}, 1000);
