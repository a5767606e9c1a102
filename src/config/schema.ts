import { z } from "zod";
import { OAuthConfigSchema } from "./oauth.js";

/**
 * The one definition of toolbridge's configuration file. It reads the `mcpServers`
 * object of Claude Desktop / Cline / Gemini CLI as it is: their approval keys (Gemini CLI's
 * `trust`, Cline's `autoApprove` and `alwaysAllow`) mean what they mean there, and keys we
 * have no use for are accepted and ignored, so a config copied from another host loads unchanged.
 */

/** Only http(s): the hub speaks Streamable HTTP and SSE, and `z.url()` alone takes `file:` too. */
const httpUrl = z.url({ protocol: /^https?$/ });
/** A server's URL: http(s) for Streamable HTTP and SSE, ws(s) for WebSocket. */
const serverUrl = z.url({ protocol: /^(https?|wss?)$/ });

/** A root: a directory, or a file: URI (a server is only ever offered local directories). */
const rootEntry = z
  .string()
  .min(1)
  .refine((value) => !/^[a-z][a-z0-9+.-]+:/i.test(value) || value.startsWith("file:"), "expected a directory or a file: URI");

/** The protocol revisions a server can be pinned to, or "auto". */
export const ProtocolSettingSchema = z.enum(["auto", "2025-11-25", "2026-07-28"]);

const toolFilter = {
  includeTools: z.array(z.string()).optional().describe("Only these tools (original server names) are exposed."),
  excludeTools: z.array(z.string()).optional().describe("These tools (original server names) are hidden; wins over includeTools."),
  disabled: z.boolean().optional().describe("The server is not started."),
  startupTimeoutMs: z.number().int().positive().optional().describe("How long initialize + first listing may take."),
  toolTimeoutMs: z.number().int().positive().optional().describe("Default timeout of one tools/call, reset by progress notifications."),
  trust: z.boolean().optional().describe("Every tool of this server runs without asking (Gemini CLI)."),
  autoApprove: z.array(z.string()).optional().describe("Tools that run without asking (Cline: autoApprove, alwaysAllow)."),
  alwaysAllow: z.array(z.string()).optional().describe("The same as autoApprove (Cline's name)."),
  maxToolTimeMs: z.number().int().positive().optional().describe("Cap on one tools/call however much progress it reports."),
  maxMessageBytes: z.number().int().positive().optional().describe("The most bytes one message from the server may take (default 64 MiB)."),
  maxRestarts: z
    .number()
    .int()
    .min(0)
    .max(100)
    .optional()
    .describe(
      "How many times in a row a server that exited is started again (or one whose connection dropped is reconnected), waiting about 1 s, 2 s, 4 s ... up to 30 s (with jitter) before each, before it is left down (default 5; 0 never restarts it).",
    ),
  roots: z.array(rootEntry).optional().describe("This server's roots (directories or file: URIs), instead of the top-level `roots`."),
  logLevel: z.enum(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]).optional().describe("The least severe server log message we ask for (logging/setLevel); default \"warning\"."),
  protocol: ProtocolSettingSchema.optional().describe(
    'The protocol revision spoken to this server: "auto" (default) asks server/discover and falls back to 2025-11-25 initialize; a revision pins it, and a server that does not speak it fails to connect.',
  ),
  tasks: z.enum(["auto", "never", "always"]).optional().describe("Overrides the top-level `tasks` for this server."),
  sampling: z
    .strictObject({
      model: z.string().min(1).optional().describe("The model that answers (default: the llm section's)."),
      maxRequestsPerMinute: z.number().int().positive().optional().describe("At most this many sampling requests per minute (default 10)."),
      maxTokensPerMinute: z.number().int().positive().optional().describe("At most this many tokens (in and out) per minute (default 50 000)."),
    })
    .optional()
    .describe("How this server's sampling requests are answered."),
};

export const StdioServerSchema = z.looseObject({
  type: z.literal("stdio").optional().describe("Optional: an entry with a command is a stdio server."),
  command: z.string().min(1).describe("The program that runs the server (`${VAR}` expands here and in args, env, cwd)."),
  args: z.array(z.string()).optional().describe("Its arguments."),
  env: z.record(z.string(), z.string()).optional().describe("Variables given to it, besides a minimal safe set (PATH, HOME, ...)."),
  cwd: z.string().optional().describe("The directory it starts in."),
  ...toolFilter,
});

export const RemoteServerSchema = z
  .looseObject({
  type: z
    .enum(["http", "streamable-http", "streamableHttp", "sse", "websocket"])
    .optional()
    .describe(
      '"http" tries Streamable HTTP and falls back to legacy SSE; "sse" goes straight to SSE; "websocket" (or a ws:// or wss:// url) speaks one JSON-RPC message per text frame, subprotocol "mcp".',
    ),
  url: serverUrl.describe("The server's address: http(s) for Streamable HTTP and SSE, ws(s) for WebSocket."),
  headers: z.record(z.string(), z.string()).optional().describe("Headers sent with every request (and on a WebSocket's handshake)."),
  oauth: OAuthConfigSchema.optional().describe("OAuth 2.1 settings; without them a server that asks for a login is still discovered and logged in to."),
  ...toolFilter,
  })
  .refine((server) => (isWebSocketUrl(server.url) ? server.type === undefined || server.type === "websocket" : server.type !== "websocket"), {
    message: 'a WebSocket server needs a ws:// or wss:// url, and a ws:// or wss:// url needs "type": "websocket" or no type',
    path: ["url"],
  });

export const ServerConfigSchema = z.union([StdioServerSchema, RemoteServerSchema]);

export const ToolModeSchema = z.enum(["native", "prompt", "auto"]);

export const ToolChoiceSchema = z.union([
  z.enum(["auto", "required", "none"]),
  z.strictObject({ name: z.string().min(1) }),
]);

/** The call formats prompt mode can ask for, one per model family's chat template. */
export const PromptFormatSchema = z.enum([
  "hermes",
  "llama",
  "mistral",
  "mistral-v11",
  "deepseek",
  "deepseek-v31",
  "deepseek-v32",
  "deepseek-v4",
  "deepseek-v41",
  "glm",
  "kimi",
  "kimi-k3",
  "gpt-oss",
  "granite",
  "qwen3-coder",
  "gemma4",
  "functiongemma",
  "minimax",
  "minimax-m3",
  "seed-oss",
  "step3",
  "hunyuan",
  "lfm2",
  "olmo3",
  "xlam",
]);

export const ProviderSchema = z.enum(["openai-compatible", "vllm", "ollama", "openai", "anthropic", "gemini", "local"]);

export const LlmConfigSchema = z.strictObject({
  provider: ProviderSchema.optional().describe("Which API the model server speaks (default: openai-compatible, or the one --base-url finds)."),
  baseURL: httpUrl.optional().describe("The model server's base URL (default: OPENAI_BASE_URL, then vLLM's and Ollama's local addresses)."),
  model: z.string().min(1).optional().describe("The model (default: the first the server lists); with provider local, a .gguf path or hf:OWNER/REPO/FILE.gguf."),
  apiKey: z.string().optional().describe("A literal key; prefer apiKeyEnv so the key stays out of the file."),
  apiKeyEnv: z.string().optional().describe("Name of the environment variable holding the API key."),
  systemPrompt: z.string().optional().describe("The system prompt of every conversation."),
  temperature: z.number().min(0).max(2).optional().describe("Sampling temperature."),
  maxTokens: z.number().int().positive().optional().describe("The most tokens one answer may take."),
  maxIterations: z.number().int().positive().optional().describe("Rounds of tool calls per turn before the model must answer (default 5)."),
  toolChoice: ToolChoiceSchema.optional().describe('auto, required, none, or {"name": TOOL}.'),
  toolMode: ToolModeSchema.optional().describe("native, prompt (tools described in the prompt) or auto (the best mode a probe or eval found)."),
  promptFormat: z.enum(["auto", ...PromptFormatSchema.options]).optional().describe("Prompt mode's call format; \"auto\" goes by the model's name."),
  maxToolResultChars: z.number().int().positive().optional().describe("Tool results longer than this are cut before the model sees them."),
  requestTimeoutMs: z.number().int().positive().optional().describe("How long one model request may take."),
  maxAnswerChars: z.number().int().positive().optional().describe("The most characters one answer of the model may hold (default 16 Mi); a longer one is cut off with an error."),
  extraBody: z.record(z.string(), z.unknown()).optional().describe("Extra request fields passed through to the server (vLLM's chat_template_kwargs, top_k, ...)."),
  localModel: z.string().min(1).optional().describe("A GGUF file (or hf:OWNER/REPO/FILE.gguf[#REVISION]) run in-process when no model server answers and no model is named."),
  threads: z.number().int().positive().optional().describe("Provider local: CPU threads llama.cpp uses (default: the machine's math cores)."),
  contextSize: z.number().int().positive().optional().describe("Provider local: the context window in tokens (default: the model's, at most 8192)."),
});

export const ToolSearchModeSchema = z.enum(["off", "auto", "always"]);

/** `tools.search`: a mode, or the mode with its thresholds, always-loaded tools and an optional embedding endpoint. */
export const ToolSearchConfigSchema = z.union([
  ToolSearchModeSchema,
  z.strictObject({
    mode: ToolSearchModeSchema.optional().describe("auto (search past maxTools or maxTokens), always or off."),
    maxTools: z.number().int().positive().optional().describe("In \"auto\": search once more tools than this are offered (default 40)."),
    maxTokens: z.number().int().positive().optional().describe("In \"auto\": search too once the tool definitions would take more prompt tokens than this."),
    alwaysLoaded: z.array(z.string().min(1)).optional().describe("Tools offered in every request, searched or not."),
    results: z.number().int().min(1).max(50).optional().describe("Tools one search loads (default 5)."),
    embeddings: z
      .strictObject({ baseURL: httpUrl, model: z.string().min(1), apiKeyEnv: z.string().optional() })
      .optional()
      .describe("An OpenAI-compatible `/embeddings` endpoint whose ranking is fused with the lexical one."),
  }),
]);

export const GatewayConfigSchema = z.strictObject({
  listen: z.string().optional().describe("[host:]port; 127.0.0.1:4000 unless given."),
  apiKeys: z.array(z.string().min(16)).optional().describe("Bearer keys clients must send; required to listen beyond loopback. Use ${ENV} rather than literal keys."),
  corsOrigins: z.array(z.string()).optional().describe("Origins (e.g. https://chat.example.com) browsers may call from; no CORS otherwise."),
  allowedHosts: z.array(z.string()).optional().describe("Hostnames accepted in Host/Origin on loopback besides localhost (DNS rebinding guard)."),
  approve: z.enum(["ask", "readonly", "all"]).optional().describe("Which tools run for API clients, who cannot be asked: ask (trusted and listed only), readonly, all."),
  maxRequestBytes: z.number().int().positive().optional().describe("The largest request body taken (default 8 MiB); a larger one gets 413."),
  appCspAllowLocal: z.boolean().optional().describe("An MCP App's declared CSP may name wildcard hosts (`http://*`) and loopback, private or link-local ones; refused unless true."),
  maxConcurrentPerKey: z.number().int().positive().optional().describe("Requests one key (or, without keys, everyone) may have running at once."),
  modelAliases: z.record(z.string().min(1), z.string().min(1)).optional().describe("Extra model names clients may ask for, mapped to the upstream's."),
  approvalTimeoutSeconds: z.number().int().positive().max(3600).optional().describe("How long a web-chat approval waits for the person before its call is denied (default 600); at most an hour, as long as Redis keeps one."),
  maxRequestsPerMinute: z.number().int().positive().optional().describe("Requests one key (or, without keys, everyone) may make a minute; no limit unless given."),
  store: z.string().min(1).optional().describe("Where stored responses and shared limits live: redis://host:port (replicas), file:/path, memory:; a file in the state directory unless given."),
  storeTtlSeconds: z.number().int().positive().optional().describe("How long a stored response is kept (default 7 days)."),
  storeMaxBytes: z.number().int().positive().optional().describe("Bytes the embedded store may hold in all (default 256 MiB); past it a response is answered but not stored."),
  storeMaxBytesPerKey: z.number().int().positive().optional().describe("Bytes one key's stored responses may take (default 64 MiB), in any store; also the largest one response stored."),
});

/** One hook command, as Claude Code's settings write it; `timeout` in seconds. */
const HookCommandSchema = z.looseObject({
  type: z.literal("command").describe('Always "command", as in Claude Code.'),
  command: z.string().min(1).describe("Run with sh -c in the current directory."),
  timeout: z.number().positive().max(3600).optional().describe("Seconds before it is killed (default 60)."),
});
const HookMatchersSchema = z.array(
  z.looseObject({
    matcher: z.string().optional().describe("Tool events: a regular expression over the tool's whole name; absent or * matches every tool."),
    hooks: z.array(HookCommandSchema).describe("The commands, run in order."),
  }),
);

/** `hooks`: Claude Code's shape, `{PreToolUse: [{matcher: "fs__.*", hooks: [{type: "command", command, timeout}]}]}`. */
export const HooksConfigSchema = z.strictObject({
  PreToolUse: HookMatchersSchema.optional().describe("Before a tool call, and before its approval: may allow, deny, ask or change the arguments."),
  PostToolUse: HookMatchersSchema.optional().describe("After a tool call: may add context to its result or block."),
  UserPromptSubmit: HookMatchersSchema.optional().describe("When a prompt is sent: may block it or add context."),
  Stop: HookMatchersSchema.optional().describe("When the model has answered: may keep the turn going."),
  SessionStart: HookMatchersSchema.optional().describe("When a conversation starts: its output is added to the first prompt."),
});

export const PermissionsConfigSchema = z.looseObject({
  allow: z.array(z.string().min(1)).optional().describe("Tools that run unasked."),
  deny: z.array(z.string().min(1)).optional().describe("Tools that never run, whatever else allows them."),
});

export const ConfigSchema = z.looseObject({
  mcpServers: z.record(z.string().min(1), ServerConfigSchema).optional().describe("The servers, by name: a stdio server or a remote one."),
  llm: LlmConfigSchema.optional().describe("The model and how it is asked."),
  vllm: z
    .looseObject({
      baseURL: httpUrl.optional().describe("As llm.baseURL."),
      model: z.string().optional().describe("As llm.model."),
      systemPrompt: z.string().optional().describe("As llm.systemPrompt."),
    })
    .optional()
    .describe('An older form, `{"vllm": {"baseURL", "model", "systemPrompt"}}`, read as an `llm` section.'),
  tools: z
    .looseObject({
      enabled: z.array(z.string()).optional().describe("Tool allow-list over every server (exposed or original names)."),
      disabled: z.array(z.string()).optional().describe("Tools never offered (exposed or original names)."),
      search: ToolSearchConfigSchema.optional().describe("Tool search: a mode (off, auto, always) or an object."),
    })
    .optional()
    .describe("Which tools are offered, over every server."),
  roots: z.array(rootEntry).optional().describe("The roots every server is offered (directories or file: URIs); default the current directory."),
  tasks: z.enum(["auto", "never", "always"]).optional().describe("When a tool that may run as a task does: auto (long calls on servers that support it), never, always."),
  gateway: GatewayConfigSchema.optional().describe("`toolbridge gateway`: the OpenAI-compatible server in front of the model."),
  hooks: HooksConfigSchema.optional().describe("Commands run at points of a session, in Claude Code's shape."),
  permissions: PermissionsConfigSchema.optional().describe("Tools allowed or denied by pattern (`*` any characters) over `server__tool` or exposed names; deny wins."),
});

export type StdioServerConfig = z.infer<typeof StdioServerSchema>;
export type RemoteServerConfig = z.infer<typeof RemoteServerSchema>;
export type ServerConfig = z.infer<typeof ServerConfigSchema>;
export type LlmConfig = z.infer<typeof LlmConfigSchema>;
export type ToolMode = z.infer<typeof ToolModeSchema>;
export type PromptFormat = z.infer<typeof PromptFormatSchema>;
export type ToolSearchConfig = z.infer<typeof ToolSearchConfigSchema>;
export type Config = z.infer<typeof ConfigSchema>;
export type GatewayConfig = z.infer<typeof GatewayConfigSchema>;
export type ProtocolSetting = z.infer<typeof ProtocolSettingSchema>;

function isWebSocketUrl(url: string): boolean {
  return /^wss?:/i.test(url);
}

/** A remote server spoken to over WebSocket: a ws:// or wss:// url (which `"type": "websocket"` requires). */
export function isWebSocketServer(server: RemoteServerConfig): boolean {
  return isWebSocketUrl(server.url);
}

export function isStdioServer(server: ServerConfig): server is StdioServerConfig {
  return "command" in server && typeof server.command === "string";
}
