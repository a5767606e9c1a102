import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ProtocolError } from "@modelcontextprotocol/server";
import type { CreateMessageRequestParams, ElicitRequestFormParams, ElicitRequestURLParams } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { Hub } from "../../src/mcp/hub.js";
import { samplingRejected } from "../../src/mcp/client-features.js";
import type { CallToolResult, HubEvent, Progress } from "../../src/mcp/types.js";
import { hubPerTest } from "./hub-per-test.js";
import { EVERYTHING } from "./processes.js";

/**
 * The client side of MCP against the reference servers: roots (server-everything's
 * get-roots-list, server-filesystem's allowed directories), sampling, elicitation in both
 * modes, task-backed tools, log levels and completions.
 */

const { dir, stderrLogFile, connect } = hubPerTest("toolbridge-client-");
const FILESYSTEM = join(__dirname, "..", "..", "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");
const everything = { command: process.execPath, args: [EVERYTHING, "stdio"] };

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

describe("roots", () => {
  it("offers the current directory by default, and the roots given instead", async () => {
    const a = join(dir, "a");
    mkdirSync(a, { recursive: true });
    const withDefault = await connect({ everything }, { cwd: dir });
    expect(text(await withDefault.callTool("get-roots-list", {}))).toContain(pathToFileURL(dir).href);
    const given = await connect({ everything }, { roots: [a] });
    const listed = text(await given.callTool("get-roots-list", {}));
    expect(listed).toContain(pathToFileURL(a).href);
    expect(listed).not.toContain(`${pathToFileURL(dir).href}\n`);
  }, 30_000);

  it("sends roots/list_changed when the roots change, and the server sees the new list", async () => {
    const one = join(dir, "one");
    const two = join(dir, "two");
    const h = await connect({ everything }, { roots: [one] });
    await h.setRoots([one, two]);
    // The server asks for the list again when notified: poll the tool until it has.
    let listed = "";
    for (let i = 0; i < 20 && !listed.includes(pathToFileURL(two).href); i++) {
      listed = text(await h.callTool("get-roots-list", {}));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(listed).toContain("(2 total)");
    expect(h.roots().map((root) => root.uri)).toEqual([pathToFileURL(one).href, pathToFileURL(two).href]);
  }, 30_000);

  it("gives server-filesystem its allowed directories from our roots, and follows a change", async () => {
    const first = join(dir, "fs-first");
    const second = join(dir, "fs-second");
    mkdirSync(first, { recursive: true });
    mkdirSync(second, { recursive: true });
    // Started with a directory of its own: a client with roots replaces it.
    const h = await connect({ fs: { command: process.execPath, args: [FILESYSTEM, dir] } }, { roots: [first] });
    let allowed = "";
    for (let i = 0; i < 40 && !allowed.includes(first); i++) {
      allowed = text(await h.callTool("list_allowed_directories", {}));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(allowed).toContain(first);
    expect(allowed).not.toContain(second);
    await h.setRoots([second]);
    for (let i = 0; i < 40 && !allowed.includes(second); i++) {
      allowed = text(await h.callTool("list_allowed_directories", {}));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(allowed).toContain(second);
    expect(allowed).not.toContain(first);
    expect(readFileSync(stderrLogFile, "utf8")).not.toMatch(/does not support MCP Roots/);
  }, 30_000);

  it("keeps a server's own roots from the config when the shared ones change", async () => {
    const own = join(dir, "own");
    const h = await connect({ everything: { ...everything, roots: [own] } }, { roots: [dir] });
    await h.setRoots([join(dir, "other")]);
    expect(text(await h.callTool("get-roots-list", {}))).toContain(pathToFileURL(own).href);
  }, 30_000);
});

describe("sampling", () => {
  it("passes trigger-sampling-request to the handler with the server's name and returns its answer", async () => {
    const asked: { request: CreateMessageRequestParams; server: string }[] = [];
    const h = await connect(
      { everything },
      {
        onSampling: async (request, { server }) => {
          asked.push({ request, server });
          return { model: "test-model", role: "assistant", content: { type: "text", text: "sampled answer" } };
        },
      },
    );
    const result = await h.callTool("trigger-sampling-request", { prompt: "hi", maxTokens: 50 });
    expect(text(result)).toContain("sampled answer");
    expect(asked).toHaveLength(1);
    expect(asked[0]?.server).toBe("everything");
    expect(asked[0]?.request.maxTokens).toBe(50);
    expect(JSON.stringify(asked[0]?.request.messages)).toContain("hi");
  }, 30_000);

  it("hands the server the user-rejected error (-1) when the handler refuses", async () => {
    const h = await connect({ everything }, { onSampling: async () => Promise.reject(samplingRejected()) });
    const result = await h.callTool("trigger-sampling-request", { prompt: "hi" });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/-1.*User rejected sampling request/);
  }, 30_000);

  it("declares no sampling without a handler, so the server does not offer the tool", async () => {
    const h = await connect({ everything });
    expect(h.tools().map((tool) => tool.name)).not.toContain("trigger-sampling-request");
  }, 30_000);
});

describe("elicitation", () => {
  it("answers a form elicitation through the handler", async () => {
    const forms: ElicitRequestFormParams[] = [];
    const h = await connect(
      { everything },
      {
        onElicitation: async (request) => {
          forms.push(request);
          return { action: "accept", content: { name: "Ada", check: true, integer: 7, email: "ada@example.com" } };
        },
      },
    );
    const result = await h.callTool("trigger-elicitation-request", {});
    expect(forms[0]?.requestedSchema.properties).toHaveProperty("name");
    expect(text(result)).toContain("Ada");
  }, 30_000);

  it("answers a URL elicitation through its own handler", async () => {
    const urls: ElicitRequestURLParams[] = [];
    const h = await connect({ everything }, { onUrlElicitation: async (request) => (urls.push(request), { action: "accept" }) });
    const result = await h.callTool("trigger-url-elicitation", { url: "https://example.com/consent" });
    expect(urls[0]?.url).toBe("https://example.com/consent");
    expect(urls[0]?.elicitationId).toBeTruthy();
    expect(text(result)).toMatch(/completed the URL elicitation/);
  }, 30_000);

  it("answers a URLElicitationRequiredError (-32042) through the URL handler and makes the call again", async () => {
    const urls: string[] = [];
    const h = await connect({ everything }, { onUrlElicitation: async (request) => (urls.push(request.url), { action: "accept" }) });
    const result = await h.callTool("trigger-url-elicitation", { url: "https://example.com/prerequisite", errorPath: true });
    // Once for the error's prerequisite (a page of the server's choosing), once for the request the retried call sends.
    expect(urls).toHaveLength(2);
    expect(urls[1]).toBe("https://example.com/prerequisite");
    expect(result.isError).toBeFalsy();
    expect(text(result)).toMatch(/completed the URL elicitation/);
  }, 30_000);

  it("leaves the server's -32042 error standing when the URL is declined", async () => {
    const h = await connect({ everything }, { onUrlElicitation: async () => ({ action: "decline" }) });
    await expect(h.callTool("trigger-url-elicitation", { url: "https://example.com/prerequisite", errorPath: true })).rejects.toMatchObject({
      message: expect.stringMatching(/-32042|URL elicitation/),
    });
  }, 30_000);

  it("declines in the handler's words", async () => {
    const h = await connect({ everything }, { onUrlElicitation: async () => ({ action: "decline" }) });
    const result = await h.callTool("trigger-url-elicitation", { url: "https://example.com/consent" });
    expect(text(result)).toMatch(/decline/i);
  }, 30_000);
});

describe("tasks", () => {
  it("keeps execution in the registry and runs a task-required tool as a task, status as events and progress", async () => {
    const h = await connect({ everything });
    const research = h.tools().find((tool) => tool.name === "simulate-research-query");
    expect(research?.execution).toEqual({ taskSupport: "required" });
    const events: HubEvent[] = [];
    h.on((event) => events.push(event));
    const progress: Progress[] = [];
    const result = await h.callTool("simulate-research-query", { topic: "tides" }, { onProgress: (p) => progress.push(p) });
    expect(text(result)).toContain("# Research Report: tides");
    const statuses = events.flatMap((event) => (event.type === "task-status" ? [event.task.status] : []));
    expect(statuses[0]).toBe("working");
    expect(statuses).toContain("completed");
    expect(progress.some((p) => /task working: Analyzing content/.test(p.message ?? ""))).toBe(true);
    const id = events.flatMap((event) => (event.type === "task-status" ? [event.task.taskId] : []))[0] ?? "";
    expect((await h.task(id)).status).toBe("completed");
    expect((await h.tasks()).map((task) => task.taskId)).toContain(id);
  }, 30_000);

  it("passes an input_required task's question to the elicitation handler", async () => {
    const h = await connect({ everything }, { onElicitation: async () => ({ action: "accept", content: { interpretation: "snake" } }) });
    const result = await h.callTool("simulate-research-query", { topic: "python", ambiguous: true });
    expect(text(result)).toContain("python (snake)");
  }, 30_000);

  it("cancels the task on the server when the call is aborted", async () => {
    const h = await connect({ everything });
    const controller = new AbortController();
    let taskId: string | undefined;
    h.on((event) => {
      if (event.type === "task-status") {
        taskId = event.task.taskId;
        controller.abort();
      }
    });
    await expect(h.callTool("simulate-research-query", { topic: "tides" }, { signal: controller.signal })).rejects.toMatchObject({ code: "cancelled" });
    expect(taskId).toBeDefined();
    expect((await h.task(taskId as string)).status).toBe("cancelled");
  }, 30_000);
});

describe("logging", () => {
  /** Changes the roots and waits until the server has them: its "Roots updated" log (info) was sent before. */
  async function rootsUpdated(h: Hub): Promise<void> {
    await h.setRoots([join(dir, "x"), join(dir, "y")]);
    for (let i = 0; i < 40 && !text(await h.callTool("get-roots-list", {})).includes("(2 total)"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("logs messages at the configured level with server, pid and level, and announces them", async () => {
    const h = await connect({ everything: { ...everything, logLevel: "debug" } });
    const logs: Extract<HubEvent, { type: "log" }>[] = [];
    h.on((event) => (event.type === "log" ? logs.push(event) : undefined));
    await rootsUpdated(h);
    const pid = h.servers()[0]?.pid;
    const update = logs.find((log) => log.text.includes("Roots updated: 2"));
    expect(update).toMatchObject({ server: "everything", level: "info", pid, logger: "everything-server" });
    await h.close();
    expect(readFileSync(stderrLogFile, "utf8")).toContain(`[everything] pid ${pid} info everything-server: Roots updated: 2 root(s)`);
  }, 30_000);

  it("asks servers for warning and above by default", async () => {
    const h = await connect({ everything });
    const levels: string[] = [];
    h.on((event) => (event.type === "log" ? levels.push(event.level) : undefined));
    await rootsUpdated(h);
    expect(levels.filter((level) => level === "info" || level === "debug")).toEqual([]);
  }, 30_000);
});

describe("completions", () => {
  it("completes a prompt argument through the server that offers the prompt", async () => {
    const h = await connect({ everything });
    const result = await h.complete({ ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "department", value: "Eng" } });
    expect(result.completion.values).toEqual(["Engineering"]);
  }, 30_000);

  it("completes a resource template variable", async () => {
    const h = await connect({ everything });
    const template = (await h.resourceTemplates())[0];
    const result = await h.complete({ ref: { type: "ref/resource", uri: template?.uriTemplate ?? "" }, argument: { name: "resourceId", value: "1" } });
    expect(Array.isArray(result.completion.values)).toBe(true);
  }, 30_000);
});

it("samplingRejected is the spec's error", () => {
  const error = samplingRejected();
  expect(error).toBeInstanceOf(ProtocolError);
  expect(error.code).toBe(-1);
});
