import { z } from "zod";
import { OAuthConfigSchema } from "./oauth.js";

/**
 * The one definition of toolbridge's configuration file. It reads the `mcpServers`
 * object of Claude Desktop / Cline / Gemini CLI as it is: keys other hosts use that we
 * do not (autoApprove, alwaysAllow, trust, ...) are accepted and ignored, so a config
 * copied from another host loads unchanged.
 */

/** Only http(s): the hub speaks Streamable HTTP and SSE, and `z.url()` alone takes `file:` too. */
const httpUrl = z.url({ protocol: /^https?$/ });

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
};

export const StdioServerSchema = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  ...toolFilter,
});

export const RemoteServerSchema = z.looseObject({
  /** "http" tries Streamable HTTP and falls back to legacy SSE; "sse" goes straight to SSE. */
  type: z.enum(["http", "streamable-http", "streamableHttp", "sse"]).optional(),
  url: httpUrl,
  headers: z.record(z.string(), z.string()).optional(),
  /** OAuth 2.1 settings; without them a server that asks for a login is still discovered and logged in to. */
  oauth: OAuthConfigSchema.optional(),
  ...toolFilter,
});

export const ServerConfigSchema = z.union([StdioServerSchema, RemoteServerSchema]);

export const ToolModeSchema = z.enum(["native", "prompt", "auto"]);

export const ToolChoiceSchema = z.union([
  z.enum(["auto", "required", "none"]),
  z.strictObject({ name: z.string().min(1) }),
]);

export const ProviderSchema = z.enum(["openai-compatible", "vllm", "ollama", "openai", "anthropic", "gemini"]);

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
  /** Tool results longer than this are cut before the model sees them. */
  maxToolResultChars: z.number().int().positive().optional(),
  requestTimeoutMs: z.number().int().positive().optional(),
  /** Extra request fields passed through to the server (vLLM's chat_template_kwargs, top_k, ...). */
  extraBody: z.record(z.string(), z.unknown()).optional(),
});

export const ConfigSchema = z.looseObject({
  mcpServers: z.record(z.string().min(1), ServerConfigSchema).optional(),
  llm: LlmConfigSchema.optional(),
  /** Seed-003 form: `{"vllm": {"baseURL", "model", "systemPrompt"}}`, read as an `llm` section. */
  vllm: z
    .looseObject({ baseURL: httpUrl.optional(), model: z.string().optional(), systemPrompt: z.string().optional() })
    .optional(),
  /** Tool allow-list over every server (exposed or original names). */
  tools: z.looseObject({ enabled: z.array(z.string()).optional(), disabled: z.array(z.string()).optional() }).optional(),
});

export type StdioServerConfig = z.infer<typeof StdioServerSchema>;
export type RemoteServerConfig = z.infer<typeof RemoteServerSchema>;
export type ServerConfig = z.infer<typeof ServerConfigSchema>;
export type LlmConfig = z.infer<typeof LlmConfigSchema>;
export type ToolMode = z.infer<typeof ToolModeSchema>;
export type Config = z.infer<typeof ConfigSchema>;

export function isStdioServer(server: ServerConfig): server is StdioServerConfig {
  return "command" in server && typeof server.command === "string";
}
