import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { Hub } from "../../src/mcp/hub.js";
import { MAX_JSON_DEPTH } from "../../src/mcp/json-depth.js";
import { MAX_LIST_PAGES } from "../../src/mcp/lists/listing.js";
import { startHostileServer, type HostileServer, type HostileServerOptions } from "../support/hostile-mcp-http.js";
import { rejection } from "./hub-error.js";
import { hubPerTest } from "./hub-per-test.js";
import { fixture, waitUntil } from "./processes.js";

const hubs = hubPerTest("toolbridge-limits-");
const logFile = hubs.stderrLogFile;
/** The hub of the running test (closed after it by `hubPerTest`). */
let hub: Hub | undefined;

function state(name: string) {
  const found = hub?.servers().find((s) => s.name === name);
  if (!found) throw new Error(`no server ${name}`);
  return found;
}

function logText(): string {
  return existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
}

function textOf(result: Awaited<ReturnType<Hub["callTool"]>>): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

describe("listings", () => {
  it("fails a server whose tools/list pages never end at startup with the limit, not a startup timeout", async () => {
    hub = await hubs.connect({ endless: { ...fixture("hostile-lists.mjs", "--endless-at-start"), startupTimeoutMs: 60_000 } });
    expect(state("endless")).toMatchObject({
      status: "failed",
      error: `tools/list of server "endless" still had a next page after ${MAX_LIST_PAGES} pages (the limit)`,
    });
  });

  it("keeps the old tools when a refresh pages without end, and logs the limit", async () => {
    hub = await hubs.connect({ lists: fixture("hostile-lists.mjs") });
    expect(hub.tools().map((t) => t.name)).toEqual(["flood", "list-count", "go-endless", "progress-flood"]);
    await hub.callTool("go-endless", {});
    await waitUntil(() => logText().includes("could not refresh tools"), 20_000, "the refresh to fail");
    expect(logText()).toContain(
      `could not refresh tools: tools/list of server "lists" still had a next page after ${MAX_LIST_PAGES} pages (the limit)`,
    );
    expect(state("lists").status).toBe("connected");
    expect(hub.tools().map((t) => t.name)).toEqual(["flood", "list-count", "go-endless", "progress-flood"]);
  });

  it("answers a flood of list_changed notifications with at most two listings of each kind, not one per notification", async () => {
    hub = await hubs.connect({ lists: fixture("hostile-lists.mjs") });
    const changed: string[] = [];
    hub.on((event) => {
      if (event.type.endsWith("-changed")) changed.push(event.type);
    });
    await hub.callTool("flood", { count: 20_000, kinds: ["tools"] });
    await hub.callTool("flood", { count: 2_000, kinds: ["resources", "prompts"] });
    // Every notification was sent before the flood's answer, and each later listing answers
    // after them: once the listings settle, list-count shows what they cost.
    await waitUntil(() => changed.filter((type) => type === "tools-changed").length >= 1, 10_000, "a refresh");
    const counts = async () => JSON.parse(textOf(await hub!.callTool("list-count", {}))) as Record<string, number>;
    // The fixture holds listings while it floods: the first notification of each kind starts a
    // listing, every later one finds it in flight. Then exactly one more runs.
    await waitUntil(() => changed.filter((type) => type === "tools-changed").length >= 2, 10_000, "the pending refresh");
    await waitUntil(() => changed.filter((type) => type === "prompts-changed").length >= 2, 10_000, "the pending refresh");
    await waitUntil(() => changed.filter((type) => type === "resources-changed").length >= 2, 10_000, "the pending refresh");
    // One listing at startup, one in flight during the flood, one pending after it.
    expect(await counts()).toEqual({ tools: 3, resources: 3, prompts: 3 });
    expect(changed.length).toBe(6);
  });
});

describe("deeply nested JSON", () => {
  it("fails a result nested 100,000 levels deep with one line naming server and tool, not a stack overflow", async () => {
    hub = await hubs.connect({ deep: fixture("deep-json.mjs") });
    const error = await rejection(hub.callTool("deep", {}));
    expect(error.message).toBe(`tools/call deep on server "deep" failed: the result is nested more than ${MAX_JSON_DEPTH} levels deep (the limit)`);
    expect(error.server).toBe("deep");
  });

  it("leaves out a tool whose schema nests past the limit and keeps the others", async () => {
    hub = await hubs.connect({ deep: fixture("deep-json.mjs") });
    expect(hub.tools().map((t) => t.name)).toEqual(["deep"]);
    expect(logText()).toContain(`tools/list: left out "deep-schema": its entry is nested more than ${MAX_JSON_DEPTH} levels deep (the limit)`);
  });

  it("takes a result nested right up to the limit", async () => {
    hub = await hubs.connect({ deep: fixture("deep-json.mjs", String(MAX_JSON_DEPTH - 1)) });
    // The result object itself is one level: its structuredContent may nest one level less.
    const result = await hub.callTool("deep", {});
    expect(JSON.stringify(result.structuredContent)).toBe('{"a":'.repeat(MAX_JSON_DEPTH - 1) + "1" + "}".repeat(MAX_JSON_DEPTH - 1));
  });
});

describe("maxMessageBytes over HTTP", () => {
  let server: HostileServer | undefined;

  afterEach(async () => {
    await hub?.close();
    hub = undefined;
    await server?.close();
    server = undefined;
  });

  const limit = 1024 * 1024;
  const tooLarge = (what: string) => `tools/call ${what} on server "hostile" failed: the reply of `;

  async function connect(options: HostileServerOptions = {}, type?: "sse") {
    server = await startHostileServer(options);
    const url = type === "sse" ? server.sseUrl : server.url;
    hub = await hubs.connect({ hostile: { url, ...(type ? { type } : {}), maxMessageBytes: limit } });
    expect(state("hostile").status).toBe("connected");
    return hub;
  }

  it("fails a JSON reply larger than the limit with one line naming server and limit", async () => {
    const hub = await connect();
    const error = await rejection(hub.callTool("big-json", { mib: 8 }));
    expect(error.message).toBe(`${tooLarge("big-json")}more than 1 MiB exceeds the limit (maxMessageBytes 1 MiB)`);
    expect((await hub.callTool("ping", {})).content).toEqual([{ type: "text", text: "pong" }]);
  });

  it("counts a gzip body as it inflates, not as it was sent", async () => {
    const hub = await connect();
    const error = await rejection(hub.callTool("gzip-bomb", { mib: 256 }));
    expect(error.message).toMatch(/^tools\/call gzip-bomb on server "hostile" failed: the reply of more than 1(\.\d)? MiB exceeds the limit \(maxMessageBytes 1 MiB\)$/);
  });

  it("fails a call whose SSE reply is one endless data line at once, and stops reading it", async () => {
    const hub = await connect();
    const error = await rejection(hub.callTool("endless-sse", {}));
    expect(error.message).toMatch(/^tools\/call endless-sse on server "hostile" failed: the reply of more than 1(\.\d)? MiB exceeds the limit \(maxMessageBytes 1 MiB\)$/);
    expect((await hub.callTool("ping", {})).content).toEqual([{ type: "text", text: "pong" }]);
  });

  it("cuts an endless data line on the standalone GET stream of an idle hub and logs why", async () => {
    await connect({ endlessGet: true });
    await waitUntil(() => logText().includes("stream closed"), 10_000, "the GET stream to be cut");
    expect(logText()).toMatch(/stream closed: the reply of more than 1(\.\d)? MiB exceeds the limit \(maxMessageBytes 1 MiB\)/);
    // The server could write little more than the limit (plus socket buffers) before the cut.
    const written = server!.endlessWrites()[0] ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server!.endlessWrites()[0]).toBeLessThan(16 * limit);
    expect(written).toBeLessThan(16 * limit);
    expect(state("hostile").status).toBe("connected");
    expect((await hub!.callTool("ping", {})).content).toEqual([{ type: "text", text: "pong" }]);
  });

  it("reopens an event stream cut at the limit ever later, then stops with one notice", async () => {
    const notices: string[] = [];
    await connect({ endlessGet: true });
    hub!.on((event) => {
      if (event.type === "log" && event.level === "warning") notices.push(event.text);
    });
    await waitUntil(() => logText().includes("stopped reopening"), 30_000, "the hub to stop reopening the stream");
    const opened = server!.endlessWrites().length;
    expect(opened).toBe(3);
    // Longer than any backoff so far: nothing reopens it.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(server!.endlessWrites().length).toBe(opened);
    expect(notices).toEqual([
      "stopped reopening the server's event stream after 3 cuts at maxMessageBytes: its notifications (list changes, logs) no longer arrive; calls still work",
    ]);
    expect(logText().match(/stopped reopening/g)).toHaveLength(1);
    expect((await hub!.callTool("ping", {})).content).toEqual([{ type: "text", text: "pong" }]);
  }, 60_000);

  it("ends a legacy SSE connection whose stream passes the limit and fails the call it carried", async () => {
    const hub = await connect({}, "sse");
    const error = await rejection(hub.callTool("endless-sse", {}));
    expect(error.message).toMatch(/^tools\/call endless-sse on server "hostile" failed: the reply of more than 1(\.\d)? MiB exceeds the limit \(maxMessageBytes 1 MiB\)$/);
    // The next request reconnects.
    expect((await hub.callTool("ping", {})).content).toEqual([{ type: "text", text: "pong" }]);
  });
});
