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
  /** Only these tools (original server names) are exposed. */
  includeTools: z.array(z.string()).optional(),
  /** These tools (original server names) are hidden; wins over includeTools. */
  excludeTools: z.array(z.string()).optional(),
  disabled: z.boolean().optional(),
  /** How long initialize + first listing may take. */
  startupTimeoutMs: z.number().int().positive().optional(),
  /** Default timeout of one tools/call, reset by progress notifications. */
  toolTimeoutMs: z.number().int().positive().optional(),
  /** Every tool of this server runs without asking (Gemini CLI). */
  trust: z.boolean().optional(),
  /** Tools that run without asking (Cline: autoApprove, alwaysAllow). */
  autoApprove: z.array(z.string()).optional(),
  alwaysAllow: z.array(z.string()).optional(),
  /** Cap on one tools/call however much progress it reports. */
  maxToolTimeMs: z.number().int().positive().optional(),
  /** The most bytes one message from the server may take (default 64 MiB). */
  maxMessageBytes: z.number().int().positive().optional(),
  /**
   * How many times in a row a server that exited (or whose connection dropped) is started again, waiting 1 s,
   * 2 s, 4 s ... up to 30 s before each, before it is left down (default 5; 0 never restarts it).
   */
  maxRestarts: z.number().int().min(0).max(100).optional(),
  /** This server's roots (directories or file: URIs), instead of the top-level `roots`. */
  roots: z.array(rootEntry).optional(),
  /** The least severe server log message we ask for (logging/setLevel); default "warning". */
  logLevel: z.enum(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]).optional(),
  /**
   * The protocol revision spoken to this server: "auto" (default) asks server/discover and falls back to
   * 2025-11-25 initialize; a revision pins it, and a server that does not speak it fails to connect.
   */
  protocol: ProtocolSettingSchema.optional(),
  /** Overrides the top-level `tasks` for this server. */
  tasks: z.enum(["auto", "never", "always"]).optional(),
  /** How this server's sampling requests are answered. */
  sampling: z
    .strictObject({
      /** The model that answers (default: the llm section's). */
      model: z.string().min(1).optional(),
      /** At most this many sampling requests per minute (default 10). */
      maxRequestsPerMinute: z.number().int().positive().optional(),
      /** At most this many tokens (in and out) per minute (default 50 000). */
      maxTokensPerMinute: z.number().int().positive().optional(),
    })
    .optional(),
};

export const StdioServerSchema = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  ...toolFilter,
});

export const RemoteServerSchema = z
  .looseObject({
  /**
   * "http" tries Streamable HTTP and falls back to legacy SSE; "sse" goes straight to SSE; "websocket" (or a
   * ws:// or wss:// url) speaks one JSON-RPC message per text frame, subprotocol "mcp".
   */
  type: z.enum(["http", "streamable-http", "streamableHttp", "sse", "websocket"]).optional(),
  url: serverUrl,
  headers: z.record(z.string(), z.string()).optional(),
  /** OAuth 2.1 settings; without them a server that asks for a login is still discovered and logged in to. */
  oauth: OAuthConfigSchema.optional(),
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
  provider: ProviderSchema.optional(),
  baseURL: httpUrl.optional(),
  model: z.string().min(1).optional(),
  /** A literal key; prefer apiKeyEnv so the key stays out of the file. */
  apiKey: z.string().optional(),
  /** Name of the environment variable holding the API key. */
  apiKeyEnv: z.string().optional(),
  systemPrompt: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
  maxIterations: z.number().int().positive().optional(),
  toolChoice: ToolChoiceSchema.optional(),
  toolMode: ToolModeSchema.optional(),
  /** Prompt mode's call format; "auto" goes by the model's name. */
  promptFormat: z.enum(["auto", ...PromptFormatSchema.options]).optional(),
  /** Tool results longer than this are cut before the model sees them. */
  maxToolResultChars: z.number().int().positive().optional(),
  requestTimeoutMs: z.number().int().positive().optional(),
  /** The most characters one answer of the model may hold (default 16 Mi); a longer one is cut off with an error. */
  maxAnswerChars: z.number().int().positive().optional(),
  /** Extra request fields passed through to the server (vLLM's chat_template_kwargs, top_k, ...). */
  extraBody: z.record(z.string(), z.unknown()).optional(),
  /** A GGUF file (or hf:OWNER/REPO/FILE.gguf[#REVISION]) run in-process when no model server answers and no model is named. */
  localModel: z.string().min(1).optional(),
  /** Provider local: CPU threads llama.cpp uses (default: the machine's math cores). */
  threads: z.number().int().positive().optional(),
  /** Provider local: the context window in tokens (default: the model's, at most 8192). */
  contextSize: z.number().int().positive().optional(),
});

export const ToolSearchModeSchema = z.enum(["off", "auto", "always"]);

/** `tools.search`: a mode, or the mode with its thresholds, always-loaded tools and an optional embedding endpoint. */
export const ToolSearchConfigSchema = z.union([
  ToolSearchModeSchema,
  z.strictObject({
    mode: ToolSearchModeSchema.optional(),
    /** In "auto": search once more tools than this are offered (default 40). */
    maxTools: z.number().int().positive().optional(),
    /** In "auto": search too once the tool definitions would take more prompt tokens than this. */
    maxTokens: z.number().int().positive().optional(),
    /** Tools offered in every request, searched or not. */
    alwaysLoaded: z.array(z.string().min(1)).optional(),
    /** Tools one search loads (default 5). */
    results: z.number().int().min(1).max(50).optional(),
    /** An OpenAI-compatible `/embeddings` endpoint whose ranking is fused with the lexical one. */
    embeddings: z
      .strictObject({ baseURL: httpUrl, model: z.string().min(1), apiKeyEnv: z.string().optional() })
      .optional(),
  }),
]);

/** `toolbridge gateway`: the OpenAI-compatible server in front of the model. */
export const GatewayConfigSchema = z.strictObject({
  /** [host:]port; 127.0.0.1:4000 unless given. */
  listen: z.string().optional(),
  /** Bearer keys clients must send; required to listen beyond loopback. Use ${ENV} rather than literal keys. */
  apiKeys: z.array(z.string().min(16)).optional(),
  /** Origins (e.g. https://chat.example.com) browsers may call from; no CORS otherwise. */
  corsOrigins: z.array(z.string()).optional(),
  /** Hostnames accepted in Host/Origin on loopback besides localhost (DNS rebinding guard). */
  allowedHosts: z.array(z.string()).optional(),
  /** Which tools run for API clients, who cannot be asked: ask (trusted and listed only), readonly, all. */
  approve: z.enum(["ask", "readonly", "all"]).optional(),
  maxRequestBytes: z.number().int().positive().optional(),
  /** An MCP App's declared CSP may name wildcard hosts (`http://*`) and loopback, private or link-local ones; refused unless true. */
  appCspAllowLocal: z.boolean().optional(),
  /** Requests one key (or, without keys, everyone) may have running at once. */
  maxConcurrentPerKey: z.number().int().positive().optional(),
  /** Extra model names clients may ask for, mapped to the upstream's. */
  modelAliases: z.record(z.string().min(1), z.string().min(1)).optional(),
  /** How long a web-chat approval waits for the person before its call is denied (default 600); at most an hour, as long as Redis keeps one. */
  approvalTimeoutSeconds: z.number().int().positive().max(3600).optional(),
  /** Requests one key (or, without keys, everyone) may make a minute; no limit unless given. */
  maxRequestsPerMinute: z.number().int().positive().optional(),
  /** Where stored responses and shared limits live: redis://host:port (replicas), file:/path, memory:; a file in the state directory unless given. */
  store: z.string().min(1).optional(),
  /** How long a stored response is kept (default 7 days). */
  storeTtlSeconds: z.number().int().positive().optional(),
  /** Bytes the embedded store may hold in all (default 256 MiB); past it a response is answered but not stored. */
  storeMaxBytes: z.number().int().positive().optional(),
  /** Bytes one key's stored responses may take (default 64 MiB), in any store; also the largest one response stored. */
  storeMaxBytesPerKey: z.number().int().positive().optional(),
});

/** One hook command, as Claude Code's settings write it; `timeout` in seconds. */
const HookCommandSchema = z.looseObject({ type: z.literal("command"), command: z.string().min(1), timeout: z.number().positive().max(3600).optional() });
const HookMatchersSchema = z.array(z.looseObject({ matcher: z.string().optional(), hooks: z.array(HookCommandSchema) }));

/** `hooks`: Claude Code's shape, `{PreToolUse: [{matcher: "fs__.*", hooks: [{type: "command", command, timeout}]}]}`. */
export const HooksConfigSchema = z.strictObject({
  PreToolUse: HookMatchersSchema.optional(),
  PostToolUse: HookMatchersSchema.optional(),
  UserPromptSubmit: HookMatchersSchema.optional(),
  Stop: HookMatchersSchema.optional(),
  SessionStart: HookMatchersSchema.optional(),
});

/** `permissions`: tools allowed or denied by pattern (`*` any characters) over `server__tool` or exposed names; deny wins. */
export const PermissionsConfigSchema = z.looseObject({
  allow: z.array(z.string().min(1)).optional(),
  deny: z.array(z.string().min(1)).optional(),
});

export const ConfigSchema = z.looseObject({
  mcpServers: z.record(z.string().min(1), ServerConfigSchema).optional(),
  llm: LlmConfigSchema.optional(),
  /** Seed-003 form: `{"vllm": {"baseURL", "model", "systemPrompt"}}`, read as an `llm` section. */
  vllm: z
    .looseObject({ baseURL: httpUrl.optional(), model: z.string().optional(), systemPrompt: z.string().optional() })
    .optional(),
  /** Tool allow-list over every server (exposed or original names). */
  tools: z
    .looseObject({
      enabled: z.array(z.string()).optional(),
      disabled: z.array(z.string()).optional(),
      search: ToolSearchConfigSchema.optional(),
    })
    .optional(),
  /** The roots every server is offered (directories or file: URIs); default the current directory. */
  roots: z.array(rootEntry).optional(),
  /** When a tool that may run as a task does: auto (long calls on servers that support it), never, always. */
  tasks: z.enum(["auto", "never", "always"]).optional(),
  gateway: GatewayConfigSchema.optional(),
  hooks: HooksConfigSchema.optional(),
  permissions: PermissionsConfigSchema.optional(),
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
