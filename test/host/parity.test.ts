import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostSession } from "../../src/index.js";
import { AgentSession } from "../../src/cli/chat/session.js";
import { createChatModel } from "../../src/llm/create-model.js";
import { ToolModeCache } from "../../src/host/tool-mode-cache.js";
import { CLI, cliEnv, runCli } from "../support/cli.js";
import { webChatEvents } from "../support/web-chat-events.js";
import { fixture } from "../mcp/processes.js";
import { DEFAULT_VLLM_MODEL, startVllmServer, type RecordedRequest, type VllmReply, type VllmServer } from "../support/vllm-server.js";

/**
 * One host under every front end (issue 30): each row is a config and a scripted model, run
 * through every front end. Those with a model (the library, `run`, `chat`'s session, the
 * gateway's chat completions, Responses, Messages and web chat) must make the model the same
 * offer and the same decisions: read from the requests the model server received (the tools
 * of each request, the prompt format of a prompt-mode request, which tools ran: their result
 * reached the model), and the tools a person was asked about where one can be. Those where a
 * caller asks without a model (`serve hub` over stdio, the gateway's `/mcp`, the web chat's
 * API) must list the same tools and serve or withhold the same tool calls, resource and
 * prompt; the web chat's tool calls are an MCP App's, through its bridge (`/api/app-tool`). The gateway is `toolbridge gateway` itself, assembled from the same config file.
 */

const NOTES = fixture("notes-server.mjs");
const SKILLS = fixture("skills-server.mjs");
const QUESTION = "Do what the notes need.";
const NOTES_TOOLS = ["erase-notes", "list-notes", "read-notes"];
/** The notes server with an app: show-notes's result shows it, and the app calls the notes tools. */
const NOTES_APP = fixture("notes-server.mjs", "--app");
const APP_TOOLS = [...NOTES_TOOLS, "show-notes"];

interface Seen {
  /** Per model request: the tool names offered natively, sorted. */
  offers: string[][];
  /** The tool-call format the first request's system prompt teaches, in prompt mode. */
  format?: "llama" | "hermes";
  /** The tools whose result reached the model ("ran NAME"). */
  ran: string[];
}

type Served = "served" | "withheld";

/**
 * What a caller without a model sees: the hub's tools offered (the web page's list, which a
 * person may be asked about), or those listed where nobody can be asked (`serve hub`, `/mcp`:
 * only what the policy runs unasked), and whether each call, the resource and the prompt are served.
 */
interface Direct {
  offered?: string[];
  unasked?: string[];
  calls: Record<string, Served>;
  resource: Served;
  prompt: Served;
}

interface Row {
  name: string;
  config: Record<string, unknown>;
  /** `--approve` for run, chat, serve hub; gateway.approve for the gateway. Default: ask. */
  approve?: "ask" | "readonly" | "all";
  /** The model's tool mode cached as a probe found it (the state directory every front end reads). */
  probed?: "prompt";
  replies: VllmReply[];
  expected: Seen;
  /** The tools a person is asked about, where one can be (chat, web chat): each answered no. */
  asked?: string[];
  direct: Direct;
  /** The notes server has its app (NOTES_APP): the web chat's calls are the app's, through the bridge. */
  apps?: true;
}

const call = (name: string, args: Record<string, unknown> = {}): VllmReply => ({ toolCalls: [{ name, arguments: args }] });
const DONE: VllmReply = { text: "Done." };
const TRUSTED = { mcpServers: { notes: { ...NOTES, trust: true } } };
const OPEN: Direct = { offered: NOTES_TOOLS, unasked: NOTES_TOOLS, calls: { "read-notes": "served" }, resource: "served", prompt: "served" };

const ROWS: Row[] = [
  {
    name: "tool search always: the model is offered only search_tools, then what it found",
    config: { ...TRUSTED, tools: { search: "always" } },
    replies: [call("search_tools", { query: "erase notes" }), DONE],
    expected: { offers: [["search_tools"], [...NOTES_TOOLS, "search_tools"].sort()], ran: [] },
    direct: OPEN,
  },
  {
    name: "a prompt format set: prompt mode teaches Llama's format, not the one the model's name says",
    config: { ...TRUSTED, llm: { toolMode: "prompt", promptFormat: "llama" } },
    replies: [DONE],
    expected: { offers: [[]], format: "llama", ran: [] },
    direct: OPEN,
  },
  {
    name: "a cached probe found prompt mode best: every front end starts the model in prompt mode",
    config: TRUSTED,
    probed: "prompt",
    replies: [DONE],
    expected: { offers: [[]], format: "hermes", ran: [] },
    direct: OPEN,
  },
  {
    name: "an excluded tool is offered nowhere, and runs nowhere",
    config: { mcpServers: { notes: { ...NOTES_APP, trust: true, excludeTools: ["list-notes"] } } },
    apps: true,
    replies: [DONE],
    expected: { offers: [["erase-notes", "read-notes", "show-notes"]], ran: [] },
    direct: { ...OPEN, offered: ["erase-notes", "read-notes", "show-notes"], unasked: ["erase-notes", "read-notes", "show-notes"], calls: { "list-notes": "withheld", "read-notes": "served" } },
  },
  {
    name: "a server's skill is offered through load_skill",
    config: { mcpServers: { notes: { ...NOTES, trust: true }, docs: SKILLS } },
    replies: [DONE],
    expected: { offers: [[...NOTES_TOOLS, "load_skill"].sort()], ran: [] },
    direct: OPEN,
  },
  {
    name: "a tool of an untrusted server is refused when nobody allows it",
    config: { mcpServers: { notes: NOTES_APP } },
    apps: true,
    replies: [call("read-notes"), DONE],
    expected: { offers: [APP_TOOLS, APP_TOOLS], ran: [] },
    asked: ["read-notes"],
    direct: { offered: APP_TOOLS, unasked: [], calls: { "read-notes": "withheld" }, resource: "withheld", prompt: "withheld" },
  },
  {
    name: "a resource and a prompt of an untrusted server are withheld unless a person allows them",
    config: { mcpServers: { notes: NOTES } },
    replies: [DONE],
    expected: { offers: [NOTES_TOOLS], ran: [] },
    direct: { offered: NOTES_TOOLS, unasked: [], calls: {}, resource: "withheld", prompt: "withheld" },
  },
  {
    name: "under readonly, a server's resource and prompt are served as its read-only tools are",
    config: { mcpServers: { notes: NOTES } },
    approve: "readonly",
    replies: [DONE],
    expected: { offers: [NOTES_TOOLS], ran: [] },
    direct: { offered: NOTES_TOOLS, unasked: ["list-notes", "read-notes"], calls: { "read-notes": "served" }, resource: "served", prompt: "served" },
  },
  {
    name: "a destructive tool is asked about where a person can be, and refused where nobody can",
    config: { mcpServers: { notes: { ...NOTES_APP, autoApprove: ["read-notes"] } } },
    apps: true,
    replies: [call("erase-notes"), DONE],
    expected: { offers: [APP_TOOLS, APP_TOOLS], ran: [] },
    asked: ["erase-notes"],
    direct: { offered: APP_TOOLS, unasked: ["read-notes"], calls: { "erase-notes": "withheld", "read-notes": "served" }, resource: "withheld", prompt: "withheld" },
  },
  {
    name: "under readonly, a read-only tool runs and a destructive one is refused",
    config: { mcpServers: { notes: NOTES } },
    approve: "readonly",
    replies: [{ toolCalls: [{ name: "read-notes", arguments: {} }, { name: "erase-notes", arguments: {} }] }, DONE],
    expected: { offers: [NOTES_TOOLS, NOTES_TOOLS], ran: ["read-notes"] },
    asked: ["erase-notes"],
    direct: { offered: NOTES_TOOLS, unasked: ["list-notes", "read-notes"], calls: { "erase-notes": "withheld", "read-notes": "served" }, resource: "served", prompt: "served" },
  },
];

interface RowSetup {
  upstream: VllmServer;
  gatewayUrl: string;
  configFile: string;
  dir: string;
  env: Record<string, string | undefined>;
}

/** A front end with a model: runs the row's question; returns the tools a person was asked about, where one can be. */
type ModelFrontEnd = (row: Row, setup: RowSetup) => Promise<string[] | undefined>;

const MODEL_FRONT_ENDS: Record<string, ModelFrontEnd> = {
  library: async (row, { configFile, env }) => {
    const session = await HostSession.open({ config: configFile, env, approve: row.approve ?? "ask" });
    try {
      expect((await session.agent().send(QUESTION)).status).toBe("completed");
    } finally {
      await session.close();
    }
    return undefined;
  },
  run: async (row, { configFile, dir }) => {
    const done = await runCli(["run", "--config", configFile, "--approve", row.approve ?? "ask", QUESTION], { cwd: dir });
    expect(done.stderr).not.toMatch(/error/i);
    return undefined;
  },
  // The terminal chat's session, as the chat opens it, with a person who answers no.
  chat: async (row, { configFile, env }) => {
    const asked: string[] = [];
    const session = await AgentSession.open({ config: configFile, approve: row.approve ?? "ask" }, env, {
      onSignal: "abort",
      ask: async (request) => {
        asked.push(request.tool.name);
        return { decision: "deny" };
      },
    });
    try {
      expect((await session.agent.send(QUESTION)).status).toBe("completed");
    } finally {
      await session.close();
    }
    return asked;
  },
  "chat completions": async (_row, { gatewayUrl }) => {
    await post(`${gatewayUrl}/v1/chat/completions`, { model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: QUESTION }] });
    return undefined;
  },
  responses: async (_row, { gatewayUrl }) => {
    await post(`${gatewayUrl}/v1/responses`, { model: DEFAULT_VLLM_MODEL, input: QUESTION });
    return undefined;
  },
  messages: async (_row, { gatewayUrl }) => {
    await post(`${gatewayUrl}/v1/messages`, { model: DEFAULT_VLLM_MODEL, max_tokens: 256, messages: [{ role: "user", content: QUESTION }] });
    return undefined;
  },
  "web chat": async (_row, { gatewayUrl }) => {
    // The page is asked about a tool the policy does not allow: the person here says no.
    const asked: string[] = [];
    const response = await fetch(`${gatewayUrl}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: DEFAULT_VLLM_MODEL, history: [], input: QUESTION }) });
    await webChatEvents(response, async (event) => {
      if (event.type !== "approval") return;
      asked.push(String(event["tool"]));
      await post(`${gatewayUrl}/api/approvals`, { id: event.id, fingerprint: event["fingerprint"], decision: "deny" });
    });
    return asked;
  },
};

/** A front end where a caller asks without a model: what it lists and serves. */
type DirectFrontEnd = (row: Row, setup: RowSetup) => Promise<Direct>;

const DIRECT_FRONT_ENDS: Record<string, DirectFrontEnd> = {
  "serve hub": (row, { configFile, dir, env }) =>
    throughClient(new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", "hub", "--config", configFile, "--approve", row.approve ?? "ask"], cwd: dir, env: env as Record<string, string>, stderr: "ignore" }), row),
  "/mcp": (row, { gatewayUrl }) => throughClient(new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp`)), row),
  // The web chat's API: the tools it lists, and a resource or prompt served, or a question put to the page (not answered here).
  "web chat API": async (row, setup) => {
    const { gatewayUrl } = setup;
    const status = (await (await fetch(`${gatewayUrl}/api/status`)).json()) as { tools?: { name: string }[] };
    const served = async (path: string, body: unknown): Promise<Served> => {
      const response = await fetch(`${gatewayUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const answer = (await response.json()) as { approval?: unknown };
      return response.ok && answer.approval === undefined ? "served" : "withheld";
    };
    return {
      offered: (status.tools ?? []).map((tool) => tool.name).sort(),
      // The page calls no tool but through a turn or an app: the app's where the row's server has one, else the model's (above).
      calls: row.apps ? await appCalls(row, setup) : row.direct.calls,
      resource: await served("/api/resource", { uri: "notes://all", server: "notes" }),
      prompt: await served("/api/prompt", { name: "summarize-notes", server: "notes" }),
    };
  },
};

/**
 * The row's calls made by the notes app: shown by a web-chat turn that runs show-notes (the page allows it once
 * where it is asked), its frame opened, then each call through the bridge; one met with a question is withheld.
 */
async function appCalls(row: Row, { upstream, gatewayUrl }: RowSetup): Promise<Record<string, Served>> {
  const page = "a".repeat(32);
  upstream.push(call("show-notes"), DONE);
  const response = await fetch(`${gatewayUrl}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: DEFAULT_VLLM_MODEL, history: [], input: "Show the notes." }) });
  await webChatEvents(response, async (event) => {
    if (event.type === "approval") await post(`${gatewayUrl}/api/approvals`, { id: event.id, fingerprint: event["fingerprint"], decision: "allow-once" });
  });
  const bridge = async (path: string, body: unknown) => {
    const answer = await fetch(`${gatewayUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { ok: answer.ok, body: (await answer.json()) as { path?: string; approval?: unknown; result?: unknown } };
  };
  const opened = await bridge("/api/app-frames", { page, uri: "ui://notes/app.html", server: "notes" });
  expect(opened.ok, JSON.stringify(opened.body)).toBe(true);
  const frame = String(opened.body.path).split("/").at(-1);
  const calls: Record<string, Served> = {};
  for (const name of Object.keys(row.direct.calls)) {
    const made = await bridge("/api/app-tool", { page, frame, name, arguments: {} });
    calls[name] = made.ok && made.body.approval === undefined && JSON.stringify(made.body.result).includes(`ran ${name}`) ? "served" : "withheld";
  }
  return calls;
}

async function throughClient(transport: Transport, row: Row): Promise<Direct> {
  const client = new Client({ name: "parity", version: "1.0.0" });
  await client.connect(transport);
  try {
    const unasked = (await client.listTools()).tools.map((tool) => tool.name).filter((name) => APP_TOOLS.includes(name)).sort();
    const calls: Record<string, Served> = {};
    for (const name of Object.keys(row.direct.calls)) {
      const result = await client.callTool({ name, arguments: {} }).catch(() => ({ isError: true, content: [] }));
      calls[name] = !result.isError && JSON.stringify(result.content).includes(`ran ${name}`) ? "served" : "withheld";
    }
    const resource = await client.readResource({ uri: "notes://all" }).then(
      (read) => (JSON.stringify(read.contents).includes("read notes://all") ? "served" : "withheld"),
      () => "withheld" as const,
    );
    const prompt = await client.getPrompt({ name: "summarize-notes" }).then(
      (got) => (JSON.stringify(got.messages).includes("got summarize-notes") ? "served" : "withheld"),
      () => "withheld" as const,
    );
    return { unasked, calls, resource, prompt };
  } finally {
    await client.close();
  }
}

async function post(url: string, body: unknown): Promise<void> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" }, body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBe(200);
  await response.text();
}

const LLAMA_INSTRUCTION = '{"name": function name, "parameters": dictionary';

function seen(requests: readonly RecordedRequest[]): Seen {
  const first = requests[0]?.body as { tools?: unknown[]; messages: { role: string; content: unknown }[] } | undefined;
  const system = JSON.stringify(first?.messages.filter((message) => message.role === "system") ?? []);
  const format = first?.tools ? undefined : system.includes(JSON.stringify(LLAMA_INSTRUCTION).slice(1, -1)) ? "llama" : system.includes("<tool_call>") ? "hermes" : undefined;
  const last = JSON.stringify(requests.at(-1)?.body.messages ?? []);
  const ran = NOTES_TOOLS.filter((name) => last.includes(`ran ${name}`));
  return {
    offers: requests.map((request) => ((request.body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name).sort()),
    ...(format ? { format } : {}),
    ran,
  };
}

/** `toolbridge gateway` on a free port, as a user starts it; resolves with its URL and its process. */
async function startGatewayProcess(configFile: string, dir: string, env: Record<string, string | undefined>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, "gateway", "--config", configFile, "--listen", "127.0.0.1:0"], { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /listening on (http:\/\/[^\s]+)/.exec(stderr);
      if (found?.[1]) resolve(found[1]);
    });
    child.once("exit", (code) => reject(new Error(`the gateway exited (${code}): ${stderr}`)));
  });
  return { url, child };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-parity-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(ROWS)("$name", (row) => {
  let upstream: VllmServer;
  let gateway: ChildProcess | undefined;
  const setup = {} as RowSetup;

  beforeAll(async () => {
    upstream = await startVllmServer({ replies: [] });
    setup.upstream = upstream;
    const llm = { provider: "vllm", baseURL: upstream.url, model: DEFAULT_VLLM_MODEL };
    const file = { ...row.config, llm: { ...llm, ...(row.config.llm as object | undefined) }, ...(row.approve ? { gateway: { approve: row.approve } } : {}) };
    // A home (and state directory) of the row's own: its tool-mode cache is the row's.
    setup.dir = mkdtempSync(join(dir, "row-"));
    setup.env = cliEnv(setup.dir);
    setup.configFile = join(setup.dir, "toolbridge.json");
    writeFileSync(setup.configFile, JSON.stringify(file));
    if (row.probed) {
      const model = await createChatModel(file.llm as Parameters<typeof createChatModel>[0], {});
      const rows = [{ mode: "native" as const, ok: false, ms: 1 }, { mode: row.probed, ok: true, ms: 1 }];
      ToolModeCache.open(setup.env)?.saveProbe(model.baseURL ?? model.provider, model.modelId, rows);
    }
    const started = await startGatewayProcess(setup.configFile, setup.dir, setup.env);
    gateway = started.child;
    setup.gatewayUrl = started.url;
  }, 30_000);
  afterAll(async () => {
    if (gateway && gateway.exitCode === null) {
      const exited = new Promise((resolve) => gateway?.once("exit", resolve));
      gateway.kill("SIGTERM");
      await exited;
    }
    await upstream?.close();
  });

  it.each(Object.keys(MODEL_FRONT_ENDS))("through %s", async (frontEnd) => {
    const before = upstream.chatRequests.length;
    upstream.push(...row.replies);
    const asked = await MODEL_FRONT_ENDS[frontEnd]?.(row, setup);
    expect(seen(upstream.chatRequests.slice(before))).toEqual(row.expected);
    if (asked !== undefined) expect(asked).toEqual(row.asked ?? []);
  }, 30_000);

  it.each(Object.keys(DIRECT_FRONT_ENDS))("through %s", async (frontEnd) => {
    const found = await DIRECT_FRONT_ENDS[frontEnd]?.(row, setup);
    // A front end names the tools one way (offered or unasked); every other field is every front end's.
    const { offered, unasked, ...decisions } = row.direct;
    expect(found).toEqual({ ...decisions, ...(found?.offered ? { offered } : { unasked }) });
  }, 30_000);
});

describe("tools and servers list what the model is offered", () => {
  const EVERYTHING = { command: process.execPath, args: [join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"], excludeTools: ["echo"] };
  let upstream: VllmServer;
  beforeAll(async () => {
    upstream = await startVllmServer({ replies: [DONE] });
  });
  afterAll(async () => upstream?.close());

  it("the same tools as run offers (server-everything offers more to a client that can answer sampling), none excluded, and as many as servers counts", async () => {
    const configFile = join(dir, "everything.json");
    writeFileSync(configFile, JSON.stringify({ mcpServers: { everything: EVERYTHING }, llm: { provider: "vllm", baseURL: upstream.url, model: DEFAULT_VLLM_MODEL } }));
    const tools = await runCli(["tools", "--json", "--config", configFile], { cwd: dir });
    const servers = await runCli(["servers", "--json", "--config", configFile], { cwd: dir });
    await runCli(["run", "--config", configFile, QUESTION], { cwd: dir });
    const listed = (JSON.parse(tools.stdout) as { name: string }[]).map((tool) => tool.name).sort();
    const [offer] = seen(upstream.chatRequests).offers;
    expect(listed).toEqual(offer);
    expect(listed).toContain("trigger-sampling-request");
    expect(listed).not.toContain("echo");
    expect((JSON.parse(servers.stdout) as { toolCount: number }[])[0]?.toolCount).toBe(listed.length);
  }, 60_000);
});
