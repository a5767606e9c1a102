import type { CallToolResult, ElicitRequestFormParams, ElicitResult, Prompt, GetPromptResult, ReadResourceResult, Resource, ResourceTemplate, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema } from "../llm/types.js";

/** One tool in the hub's registry. */
export interface HubTool {
  /** Exposed name: unique across servers and legal for every provider (^[a-zA-Z0-9_-]{1,64}$). */
  name: string;
  /** Config key of the server that owns it. */
  server: string;
  /** The name the server gave it; what tools/call is sent with. */
  originalName: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
}

export interface HubResource extends Resource {
  server: string;
}

export interface HubResourceTemplate extends ResourceTemplate {
  server: string;
}

export interface HubPrompt extends Prompt {
  server: string;
}

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallToolOptions {
  signal?: AbortSignal;
  /** Overrides the server's toolTimeoutMs; each progress notification restarts it. */
  timeoutMs?: number;
  onProgress?: (progress: Progress) => void;
}

export type ServerStatus = "connecting" | "connected" | "failed" | "disabled" | "closed";

export interface ServerState {
  name: string;
  transport: "stdio" | "streamable-http" | "sse";
  status: ServerStatus;
  /** serverInfo from initialize */
  serverName?: string;
  serverVersion?: string;
  toolCount: number;
  resourceCount: number;
  promptCount: number;
  connectMs?: number;
  /** One line, for status "failed"; includes the tail of stderr where there is one. */
  error?: string;
  /** The last lines the server wrote to stderr (stdio servers; the full text is in the log file). */
  stderrTail?: string[];
  /** Process id of a running stdio server. */
  pid?: number;
  /** How many times the hub restarted the server after it died. */
  restarts: number;
  /** The server wants an OAuth login (Hub.login) before it can be used (again). */
  needsLogin?: boolean;
}

/** What the hub announces; the CLI and agent subscribe, the hub never prints. */
export type HubEvent =
  | { type: "tools-changed"; server: string }
  | { type: "resources-changed"; server: string }
  | { type: "prompts-changed"; server: string }
  | { type: "resource-updated"; server: string; uri: string }
  | { type: "server-status"; state: ServerState }
  | { type: "progress"; server: string; tool: string; progress: Progress };

/**
 * Answers a server's `elicitation/create` (form mode). With a handler the hub declares the
 * elicitation capability (with `applyDefaults`, so an accepted form is completed with the
 * schema's defaults); without one it declares none and servers do not ask.
 */
export type ElicitationHandler = (request: ElicitRequestFormParams, server: string) => Promise<ElicitResult>;

export type { CallToolResult, GetPromptResult, ReadResourceResult };
