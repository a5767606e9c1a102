import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hub } from "../../src/mcp/hub.js";
import { rejection } from "./hub-error.js";
import { TOOL_NAME_PATTERN } from "../../src/mcp/tool-names.js";
import type { HubEvent, Progress } from "../../src/mcp/types.js";
import { expectNoChildren, fixture, waitUntil } from "./processes.js";

const dir = mkdtempSync(join(tmpdir(), "toolbridge-hub-"));
const stderrLogFile = join(dir, "servers.log");

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

// Two toy servers that share tool names, plus one with filters: the registry's real work.
let hub: Hub;
const events: HubEvent[] = [];

beforeAll(async () => {
  hub = await Hub.connect(
    {
      alpha: fixture("toy-server.mjs", "--name", "alpha", "--tools", "search,alpha.only,a.b,a_b"),
      beta: fixture("toy-server.mjs", "--name", "beta", "--tools", "search,beta-only"),
      gamma: { ...fixture("toy-server.mjs", "--name", "gamma", "--tools", "keep,drop,search"), includeTools: ["keep", "drop", "pid", "add-resource", "add-prompt"], excludeTools: ["drop"] },
    },
    { stderrLogFile },
  );
  hub.on((event) => events.push(event));
}, 30_000);

afterAll(async () => {
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
  await expectNoChildren();
});

describe("the tool registry over several servers", () => {
  it("connects every server", () => {
    expect(hub.servers().map((s) => [s.name, s.status, s.serverName, s.serverVersion])).toEqual([
      ["alpha", "connected", "toy-alpha", "1.2.3"],
      ["beta", "connected", "toy-beta", "1.2.3"],
      ["gamma", "connected", "toy-gamma", "1.2.3"],
    ]);
  });

  it("qualifies a name two servers share and leaves unique names plain", () => {
    const names = hub.tools().map((t) => t.name);
    expect(names).toContain("alpha__search");
    expect(names).toContain("beta__search");
    expect(names).not.toContain("search");
    expect(names).toContain("beta-only");
    expect(names).toContain("alpha_only");
  });

  it("makes every exposed name provider-legal and unique", () => {
    const names = hub.tools().map((t) => t.name);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(new Set(names).size).toBe(names.length);
  });

  it("keeps the original name and the owning server on every tool", () => {
    const tool = hub.tools().find((t) => t.name === "alpha_only");
    expect(tool).toMatchObject({ server: "alpha", originalName: "alpha.only", description: "The alpha.only tool of alpha" });
  });

  it("applies includeTools and excludeTools by original name, exclude winning", () => {
    const gamma = hub.tools().filter((t) => t.server === "gamma").map((t) => t.originalName);
    expect(gamma.sort()).toEqual(["add-prompt", "add-resource", "keep", "pid"]);
  });

  it("routes a qualified collision name to the right server and original name", async () => {
    expect(text(await hub.callTool("alpha__search", {}))).toBe("alpha:search");
    expect(text(await hub.callTool("beta__search", {}))).toBe("beta:search");
  });

  it("routes a sanitized name back to the original name (a.b and a_b of one server)", async () => {
    const ab = hub.tools().filter((t) => t.server === "alpha" && (t.originalName === "a.b" || t.originalName === "a_b"));
    expect(ab).toHaveLength(2);
    for (const tool of ab) expect(text(await hub.callTool(tool.name, {}))).toBe(`alpha:${tool.originalName}`);
  });

  it("accepts server__tool for a tool exposed under its plain name", async () => {
    expect(text(await hub.callTool("beta__beta-only", {}))).toBe("beta:beta-only");
    expect(text(await hub.callTool("alpha__alpha.only", {}))).toBe("alpha:alpha.only");
  });

  it("rejects an unknown name with code unknown-tool, naming valid tools briefly", async () => {
    const error = await rejection(hub.callTool("nope", {}));
    expect(error.code).toBe("unknown-tool");
    expect(error.message).toMatch(/^unknown tool "nope"; tools: .*alpha__search.* and \d+ more$/);
  });

  it("rejects an excluded tool as unknown", async () => {
    expect((await rejection(hub.callTool("gamma__drop", {}))).code).toBe("unknown-tool");
  });
});

describe("tool calls", () => {
  it("passes every content kind, structuredContent and isError through untouched", async () => {
    const tool = hub.tools().find((t) => t.server === "alpha" && t.originalName === "content-kinds");
    const result = await hub.callTool(tool?.name ?? "", {});
    expect(result.content).toEqual([
      { type: "text", text: "plain text" },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      { type: "resource_link", uri: "toy://alpha/info", name: "info", mimeType: "text/plain" },
      { type: "resource", resource: { uri: "toy://alpha/embedded", mimeType: "text/plain", text: "embedded text" } },
    ]);
    expect(result.structuredContent).toEqual({ kinds: 5 });
    expect(tool?.outputSchema).toMatchObject({ type: "object", properties: { kinds: { type: "number" } } });
  });

  it("returns a tool error as a result with isError, not as a thrown error", async () => {
    const result = await hub.callTool("alpha__fails", {});
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "it went wrong" }] });
  });

  it("times out a call that makes no progress, with code timeout", async () => {
    const started = Date.now();
    const error = await rejection(hub.callTool("alpha__sleep", { ms: 5000 }, { timeoutMs: 300 }));
    expect(error.code).toBe("timeout");
    expect(error.message).toContain("timed out after 300 ms");
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("surfaces progress as a callback and as hub events, and lets progress extend the timeout", async () => {
    const seen: Progress[] = [];
    const before = events.length;
    // 6 steps of 150 ms = 900 ms in all, well past the 400 ms timeout that each step restarts.
    const result = await hub.callTool("beta__slow", { steps: 6, stepMs: 150 }, { timeoutMs: 400, onProgress: (p) => seen.push(p) });
    expect(text(result)).toBe("done in 6 steps");
    // The SDK may drop the last notification when the result overtakes it; the ones before it arrive in order.
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3, 4, 5, 6].slice(0, seen.length));
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect(seen[0]).toMatchObject({ total: 6, message: "step 1" });
    const progressEvents = events.slice(before).filter((e) => e.type === "progress");
    expect(progressEvents).toHaveLength(seen.length);
    expect(progressEvents[0]).toMatchObject({ type: "progress", server: "beta", tool: "beta__slow" });
  });

  it("cancels a call by AbortSignal and tells the server (notifications/cancelled)", async () => {
    const controller = new AbortController();
    const call = hub.callTool("alpha__sleep", { ms: 30_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const error = await rejection(call);
    expect(error.code).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(5000);
    // The server saw the cancellation (stdio keeps order: it arrived before this request).
    expect(text(await hub.callTool("alpha__was-cancelled", {}))).toBe("true");
  });

  it("rejects at once a call whose signal is already aborted", async () => {
    expect((await rejection(hub.callTool("alpha__pid", {}, { signal: AbortSignal.abort() }))).code).toBe("cancelled");
  });

  it("reports a JSON-RPC error from the server with code server-error", async () => {
    const error = await rejection(hub.readResource("toy://alpha/missing", "alpha"));
    expect(error.code).toBe("server-error");
    expect(error.message).toMatch(/^resources\/read toy:\/\/alpha\/missing on server "alpha" failed: .*not found/i);
  });
});

describe("list changes", () => {
  it("refreshes the registry on notifications/tools/list_changed and announces it", async () => {
    const listBefore = hub.tools();
    expect(hub.tools()).toBe(listBefore);
    const before = events.length;
    await hub.callTool("beta__add-tool", { tool: "late.tool" });
    await waitUntil(() => events.slice(before).some((e) => e.type === "tools-changed" && e.server === "beta"), 5000, "tools-changed");
    await waitUntil(() => hub.tools().some((t) => t.originalName === "late.tool"), 5000, "late.tool in the registry");
    const late = hub.tools().find((t) => t.originalName === "late.tool");
    expect(late).toMatchObject({ name: "late_tool", server: "beta" });
    // One array per registry: callers (the agent, the model adapters) cache by its identity.
    expect(hub.tools()).not.toBe(listBefore);
    expect(Object.isFrozen(hub.tools())).toBe(true);
    expect(text(await hub.callTool("late_tool", {}))).toBe("beta:late.tool");
  });
});

describe("resource and prompt list changes", () => {
  it("refreshes resources on notifications/resources/list_changed and announces it", async () => {
    await hub.callTool("gamma__add-resource", { id: "fresh" });
    await waitUntil(() => events.some((e) => e.type === "resources-changed" && e.server === "gamma"), 5000, "resources-changed");
    expect((await hub.resources()).find((r) => r.uri === "toy://gamma/fresh")).toMatchObject({ server: "gamma" });
    expect(hub.servers().find((s) => s.name === "gamma")?.resourceCount).toBe(2);
    expect((await hub.readResource("toy://gamma/fresh")).contents[0]).toMatchObject({ text: "fresh" });
  });

  it("refreshes prompts on notifications/prompts/list_changed and announces it", async () => {
    await hub.callTool("gamma__add-prompt", { prompt: "brand-new" });
    await waitUntil(() => events.some((e) => e.type === "prompts-changed" && e.server === "gamma"), 5000, "prompts-changed");
    expect((await hub.prompts()).find((p) => p.name === "brand-new")).toMatchObject({ server: "gamma" });
    const result = await hub.getPrompt("brand-new");
    expect(result.messages[0]?.content).toEqual({ type: "text", text: "brand-new" });
  });
});

describe("resources and prompts", () => {
  it("merges resources and templates across servers, each tagged with its server", async () => {
    const resources = await hub.resources();
    expect(resources.filter((r) => r.name === "info").map((r) => [r.server, r.uri])).toEqual([
      ["alpha", "toy://alpha/info"],
      ["beta", "toy://beta/info"],
      ["gamma", "toy://gamma/info"],
    ]);
    const templates = await hub.resourceTemplates();
    expect(templates.map((t) => [t.server, t.uriTemplate])).toContainEqual(["beta", "toy://beta/items/{id}"]);
  });

  it("routes a read to the server that lists the URI", async () => {
    const result = await hub.readResource("toy://beta/info");
    expect(result.contents[0]).toMatchObject({ uri: "toy://beta/info", text: "info of beta" });
  });

  it("routes a read to the server whose template matches", async () => {
    const result = await hub.readResource("toy://gamma/items/42");
    expect(result.contents[0]).toMatchObject({ text: "item 42 of gamma" });
  });

  it("reads from the server named, when one is", async () => {
    const result = await hub.readResource("toy://alpha/info", "alpha");
    expect(result.contents[0]).toMatchObject({ text: "info of alpha" });
  });

  it("rejects a URI no server offers with code unknown-resource", async () => {
    const error = await rejection(hub.readResource("toy://nobody/none"));
    expect(error.code).toBe("unknown-resource");
    expect(error.message).toContain("name the server (one of alpha, beta, gamma)");
  });

  it("rejects an unknown server name with code unknown-server", async () => {
    expect((await rejection(hub.readResource("toy://alpha/info", "delta"))).code).toBe("unknown-server");
  });

  it("merges prompts, and asks for the server when several offer the same prompt", async () => {
    const prompts = await hub.prompts();
    expect(prompts.filter((p) => p.name === "greet").map((p) => p.server)).toEqual(["alpha", "beta", "gamma"]);
    const error = await rejection(hub.getPrompt("greet", { who: "Ada" }));
    expect(error.code).toBe("ambiguous");
    const result = await hub.getPrompt("greet", { who: "Ada" }, "gamma");
    expect(result.messages[0]?.content).toEqual({ type: "text", text: "Hello Ada, from gamma" });
  });

  it("rejects an unknown prompt with code unknown-prompt", async () => {
    expect((await rejection(hub.getPrompt("nope"))).code).toBe("unknown-prompt");
  });
});
