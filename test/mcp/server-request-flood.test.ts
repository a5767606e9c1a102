// A hostile server that sends a thousand requests at once (sampling, elicitation): every one is answered, and the
// answers pile up no listeners on the way out (Node's MaxListenersExceededWarning would print into the chat).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { Hub, type HubOptions } from "../../src/mcp/hub.js";
import { samplingRejected } from "../../src/mcp/client-features.js";

const FLOOD = 1000;

let dir: string;
let warnings: string[];
const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
const cleanups: (() => Promise<void>)[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-flood-"));
  warnings = [];
  process.on("warning", onWarning);
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  process.off("warning", onWarning);
  rmSync(dir, { recursive: true, force: true });
});

/** Handlers that answer at once, as the chat does once its queue of questions is full: declined. */
const declining: HubOptions = {
  onElicitation: async () => ({ action: "decline" }),
  onSampling: async () => {
    throw samplingRejected();
  },
};

/** The requests of the flood: a sampling and an elicitation request each time. */
function floodRequests(count: number): object[] {
  return Array.from({ length: count }, (_, k) => [
    { jsonrpc: "2.0", id: `s${k}`, method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 } },
    { jsonrpc: "2.0", id: `e${k}`, method: "elicitation/create", params: { message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } } },
  ]).flat();
}

// Over stdio: the flood in one go, then stdin left unread a while, so that the answers wait for the pipe to drain.
const STDIO_SERVER = `
const flood = ${JSON.stringify(floodRequests(FLOOD))};
const send = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
let buffer = "";
let answers = 0;
let call;
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let at;
  while ((at = buffer.indexOf("\\n")) !== -1) {
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
function handle(message) {
  const { id, method, params } = message;
  if (method === "initialize") return send({ jsonrpc: "2.0", id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "flood", version: "1" } } });
  if (method === "tools/list") return send({ jsonrpc: "2.0", id, result: { tools: [{ name: "flood", inputSchema: { type: "object" } }] } });
  if (method === "tools/call") {
    call = id;
    for (const request of flood) send(request);
    process.stdin.pause();
    setTimeout(() => process.stdin.resume(), 500);
    return;
  }
  if (method === undefined && ++answers === flood.length) send({ jsonrpc: "2.0", id: call, result: { content: [{ type: "text", text: answers + " answers" }] } });
  else if (method !== undefined && id !== undefined) send({ jsonrpc: "2.0", id, result: {} });
}
`;

it("answers a stdio server's flood of requests while it does not read, with no listener piled up per answer", async () => {
  writeFileSync(join(dir, "flood.mjs"), STDIO_SERVER);
  const hub = await Hub.connect({ flood: { command: process.execPath, args: [join(dir, "flood.mjs")], protocol: "2025-11-25" } }, { ...declining, stderrLogFile: join(dir, "log") });
  cleanups.push(() => hub.close());
  expect(hub.servers()[0]?.status).toBe("connected");
  const result = await hub.callTool("flood", {});
  expect(result.content).toEqual([{ type: "text", text: `${2 * FLOOD} answers` }]);
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.filter((warning) => warning.startsWith("MaxListenersExceededWarning"))).toEqual([]);
}, 180_000);
