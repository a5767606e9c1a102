import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, ApprovalPolicy, sessionSettings } from "../../src/index.js";
import { parseConfig, type ResolvedConfig } from "../../src/config/load.js";
import { webClientHandlers } from "../../src/gateway/web-chat/client-handlers.js";
import { GatewayModels } from "../../src/gateway/models.js";
import { startGateway } from "../../src/gateway/server.js";
import { turnSettings } from "../../src/gateway/settings.js";
import { WebServerQuestions } from "../../src/gateway/web-chat/server-questions.js";
import { createChatModel } from "../../src/llm/create-model.js";
import { Hub } from "../../src/mcp/hub.js";
import { runCli } from "../support/cli.js";
import { webChatEvents } from "../support/web-chat-events.js";
import { fixture } from "../mcp/processes.js";
import { DEFAULT_VLLM_MODEL, startVllmServer, type RecordedRequest, type VllmReply, type VllmServer } from "../support/vllm-server.js";

/**
 * One host under every front end (issue 30): each row is a config and a scripted model, run
 * through `run` (the built CLI) and the gateway's chat completions, Responses, Messages and web
 * chat; every front end must make the model the same offer and the same decisions. What each
 * saw is read from the requests the model server received: the tools of each request, the
 * prompt format of a prompt-mode request, and which tools ran (their result reached the model).
 */

const NOTES = fixture("notes-server.mjs");
const SKILLS = fixture("skills-server.mjs");
const QUESTION = "Do what the notes need.";

interface Seen {
  /** Per model request: the tool names offered natively, sorted. */
  offers: string[][];
  /** The tool-call format the first request's system prompt teaches, in prompt mode. */
  format?: "llama" | "hermes";
  /** The tools whose result reached the model ("ran NAME"). */
  ran: string[];
}

interface Row {
  name: string;
  config: Record<string, unknown>;
  /** `--approve` for run; gateway.approve for the gateway. Default: ask. */
  approve?: "ask" | "readonly" | "all";
  replies: VllmReply[];
  expected: Seen;
}

const call = (name: string, args: Record<string, unknown> = {}): VllmReply => ({ toolCalls: [{ name, arguments: args }] });
const DONE: VllmReply = { text: "Done." };

const ROWS: Row[] = [
  {
    name: "tool search always: the model is offered only search_tools, then what it found",
    config: { mcpServers: { notes: { ...NOTES, trust: true } }, tools: { search: "always" } },
    replies: [call("search_tools", { query: "erase notes" }), DONE],
    expected: { offers: [["search_tools"], ["erase-notes", "list-notes", "read-notes", "search_tools"]], ran: [] },
  },
  {
    name: "a prompt format set: prompt mode teaches Llama's format, not the one the model's name says",
    config: { mcpServers: { notes: { ...NOTES, trust: true } }, llm: { toolMode: "prompt", promptFormat: "llama" } },
    replies: [DONE],
    expected: { offers: [[]], format: "llama", ran: [] },
  },
  {
    name: "an excluded tool is offered nowhere",
    config: { mcpServers: { notes: { ...NOTES, trust: true, excludeTools: ["list-notes"] } } },
    replies: [DONE],
    expected: { offers: [["erase-notes", "read-notes"]], ran: [] },
  },
  {
    name: "a server's skill is offered through load_skill",
    config: { mcpServers: { notes: { ...NOTES, trust: true }, docs: SKILLS } },
    replies: [DONE],
    expected: { offers: [["erase-notes", "list-notes", "load_skill", "read-notes"]], ran: [] },
  },
  {
    name: "a tool of an untrusted server is refused when nobody allows it",
    config: { mcpServers: { notes: NOTES } },
    replies: [call("read-notes"), DONE],
    expected: { offers: [["erase-notes", "list-notes", "read-notes"], ["erase-notes", "list-notes", "read-notes"]], ran: [] },
  },
  {
    name: "under readonly, a read-only tool runs and a destructive one is refused",
    config: { mcpServers: { notes: NOTES } },
    approve: "readonly",
    replies: [{ toolCalls: [{ name: "read-notes", arguments: {} }, { name: "erase-notes", arguments: {} }] }, DONE],
    expected: { offers: [["erase-notes", "list-notes", "read-notes"], ["erase-notes", "list-notes", "read-notes"]], ran: ["read-notes"] },
  },
];

type FrontEnd = (row: Row, setup: RowSetup) => Promise<void>;

interface RowSetup {
  hub: Hub;
  config: ResolvedConfig;
  gatewayUrl: string;
  configFile: string;
  dir: string;
}

const FRONT_ENDS: Record<string, FrontEnd> = {
  library: async (row, { hub, config }) => {
    const llm = config.llm ?? {};
    const agent = new Agent({
      model: await createChatModel(llm, {}),
      tools: hub,
      skills: hub,
      approval: { policy: new ApprovalPolicy({ mode: row.approve ?? "ask", servers: config.mcpServers }) },
      ...sessionSettings(config, llm, {}),
    });
    expect((await agent.send(QUESTION)).status).toBe("completed");
  },
  run: async (row, { configFile, dir }) => {
    const done = await runCli(["run", "--config", configFile, "--approve", row.approve ?? "ask", QUESTION], { cwd: dir });
    expect(done.stderr).not.toMatch(/error/i);
  },
  "chat completions": async (_row, { gatewayUrl }) => {
    await post(`${gatewayUrl}/v1/chat/completions`, { model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: QUESTION }] });
  },
  responses: async (_row, { gatewayUrl }) => {
    await post(`${gatewayUrl}/v1/responses`, { model: DEFAULT_VLLM_MODEL, input: QUESTION });
  },
  messages: async (_row, { gatewayUrl }) => {
    await post(`${gatewayUrl}/v1/messages`, { model: DEFAULT_VLLM_MODEL, max_tokens: 256, messages: [{ role: "user", content: QUESTION }] });
  },
  "web chat": async (_row, { gatewayUrl }) => {
    // The page is asked about a tool the policy does not allow: the person here says no.
    const response = await fetch(`${gatewayUrl}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: DEFAULT_VLLM_MODEL, history: [], input: QUESTION }) });
    await webChatEvents(response, async (event) => {
      if (event.type === "approval") await post(`${gatewayUrl}/api/approvals`, { id: event.id, fingerprint: event["fingerprint"], decision: "deny" });
    });
  },
};

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
  const ran = ["read-notes", "list-notes", "erase-notes"].filter((name) => last.includes(`ran ${name}`));
  return {
    offers: requests.map((request) => ((request.body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name).sort()),
    ...(format ? { format } : {}),
    ran,
  };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-parity-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(ROWS)("$name", (row) => {
  let upstream: VllmServer;
  let hub: Hub;
  let close: () => Promise<void>;
  const setup = {} as RowSetup;

  beforeAll(async () => {
    upstream = await startVllmServer({ replies: [] });
    const llm = { provider: "vllm", baseURL: upstream.url, model: DEFAULT_VLLM_MODEL };
    const file = { ...row.config, llm: { ...llm, ...(row.config.llm as object | undefined) }, ...(row.approve ? { gateway: { approve: row.approve } } : {}) };
    setup.dir = dir;
    setup.configFile = join(dir, `${ROWS.indexOf(row)}.json`);
    writeFileSync(setup.configFile, JSON.stringify(file));
    // As `toolbridge gateway` assembles itself from the same config.
    const config = parseConfig(JSON.stringify(file), { env: {} });
    const questions = new WebServerQuestions();
    const models = new GatewayModels(await createChatModel(config.llm ?? {}, {}), config.llm ?? {}, {}, {});
    setup.config = config;
    hub = setup.hub = await Hub.connect(config.mcpServers, webClientHandlers(questions, { approve: row.approve ?? "ask", servers: config.mcpServers, models: () => models }));
    const gateway = await startGateway({ port: 0, hub, models, questions, settings: turnSettings(config, config.llm ?? {}, {}, { skills: hub }) });
    setup.gatewayUrl = gateway.url;
    close = async () => {
      await gateway.close();
      await hub.close();
      await upstream.close();
    };
  }, 30_000);
  afterAll(async () => close?.());

  it.each(Object.keys(FRONT_ENDS))("through %s", async (frontEnd) => {
    const before = upstream.chatRequests.length;
    upstream.push(...row.replies);
    await FRONT_ENDS[frontEnd]?.(row, setup);
    expect(seen(upstream.chatRequests.slice(before))).toEqual(row.expected);
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
