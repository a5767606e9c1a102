import type { CallToolResult, ClientCapabilities, CompleteRequestParams, CompleteResult, CreateMessageRequestParams, CreateMessageResult, CreateMessageResultWithTools, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult, Icon, LoggingLevel, Prompt, GetPromptResult, ReadResourceResult, Resource, ResourceTemplateType, Root, Task, ToolAnnotations, ToolExecution } from "@modelcontextprotocol/client";
import type { Skill } from "@modelcontextprotocol/client/ext/skills";
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
  /** `taskSupport`: whether the tool runs as a task (required, optional, forbidden). */
  execution?: ToolExecution;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

export interface HubResource extends Resource {
  server: string;
}

export interface HubResourceTemplate extends ResourceTemplateType {
  server: string;
}

export interface HubPrompt extends Prompt {
  server: string;
}

/** A skill a server offers (SEP-2640): what a listing shows and the model is told; its files are read only when it is loaded. */
/** A skill entry as its server listed it (valid, its files' digests and sizes as given), and that server. */
export type HubSkillEntry = Skill & { server: string };

export interface HubSkill {
  server: string;
  /** The frontmatter's `name`, unique within its server. */
  name: string;
  /** The frontmatter's `description`: what the skill is for, and when to use it. */
  description: string;
  /** Its SKILL.md's URI. */
  uri: string;
  /** How many files it lists, or "dynamic" when the server lists none. */
  files: number | "dynamic";
}

/** A loaded skill file, verified against the skill's entry. */
export interface LoadedSkill {
  server: string;
  name: string;
  /** The file read: the skill's SKILL.md unless another file was asked for. */
  uri: string;
  text: string;
  /** The skill's other files, relative to its folder, to load on need. */
  otherFiles: string[];
}

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * One round of a 2026-07-28 multi-round-trip request the hub passes on for a client of its own
 * (serving MCP): the client's answers and the server's request state go to the server as they
 * came, under that client's capabilities, and a server's `input_required` result comes back as
 * it is, for that client to answer. A server speaking 2025-11-25 is asked as always.
 */
export interface RelayedRound {
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  clientCapabilities?: ClientCapabilities;
}

/**
 * What a server may offer beyond its lists that the hub, served as one MCP server, passes on: `completion/complete`,
 * log messages, resource subscriptions, skills (SEP-2640, the `io.modelcontextprotocol/skills` extension) and the
 * reading of their folders (its `directoryRead`).
 */
export type RelayedFeature = "completions" | "logging" | "subscriptions" | "skills" | "skill directories";

export interface CallToolOptions {
  signal?: AbortSignal;
  /** Overrides the server's toolTimeoutMs; each progress notification restarts it. */
  timeoutMs?: number;
  onProgress?: (progress: Progress) => void;
}

export type ServerStatus = "connecting" | "connected" | "failed" | "disabled" | "closed";

export interface ServerState {
  name: string;
  transport: "stdio" | "streamable-http" | "sse" | "websocket";
  status: ServerStatus;
  /** serverInfo from initialize */
  serverName?: string;
  serverVersion?: string;
  /** The MCP revision negotiated with the server: "2025-11-25" (initialize) or "2026-07-28" (server/discover). */
  protocolVersion?: string;
  /** The server declares the tasks extension (2026-07-28, `io.modelcontextprotocol/tasks`): its tools may run as tasks. */
  tasksExtension?: boolean;
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
  /** How many times the hub restarted the server after it died (a remote server: reconnected after its connection dropped). */
  restarts: number;
  /**
   * Why the server's last live connection ended ("exit 1", "SIGKILL", "the connection closed", "connection refused",
   * "the session ended (HTTP 404)"): set when it drops, kept once it is back, so that "server fs restarted (exit 1),
   * tools back" (a remote server: "reconnected") can be said.
   */
  dropped?: string;
  /** Between a drop and the end of its restarts (back, or given up after maxRestarts tries). */
  restarting?: boolean;
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
  | { type: "progress"; server: string; tool: string; progress: Progress }
  /** A task-backed tool call changed status (polled). */
  | { type: "task-status"; server: string; tool: string; task: Task }
  /** A server's `notifications/message`, at or above its configured logLevel. */
  | { type: "log"; server: string; pid?: number; level: LoggingLevel; logger?: string; text: string }
  /** A server says the out-of-band (URL mode) elicitation it asked for is done. */
  | { type: "elicitation-complete"; server: string; elicitationId: string };

/**
 * Answers a server's `elicitation/create` (form mode). With a handler the hub declares the
 * elicitation capability (with `applyDefaults`, so an accepted form is completed with the
 * schema's defaults); without one it declares none and servers do not ask.
 */
/** `signal` aborts when the server gives up on its request (cancelled, timed out). */
export type ElicitationHandler = (request: ElicitRequestFormParams, server: string, signal?: AbortSignal) => Promise<ElicitResult>;

/**
 * Answers a URL-mode `elicitation/create`: show the URL and who asks, open it only with the
 * person's consent. With a handler the hub declares `elicitation.url`.
 */
export type UrlElicitationHandler = (request: ElicitRequestURLParams, server: string, signal?: AbortSignal) => Promise<ElicitResult>;

/**
 * Answers a server's `sampling/createMessage` (with the host's model, after the host's policy).
 * With a handler the hub declares `sampling` with `tools`. A refusal throws `samplingRejected()`.
 */
export type SamplingHandler = (
  request: CreateMessageRequestParams,
  context: { server: string; signal: AbortSignal },
) => Promise<CreateMessageResult | CreateMessageResultWithTools>;

/** The callbacks through which a server asks the host for something; the hub holds no policy of its own. */
export interface ClientHandlers {
  onElicitation?: ElicitationHandler;
  onUrlElicitation?: UrlElicitationHandler;
  onSampling?: SamplingHandler;
}

/** When a tool whose `execution.taskSupport` is `optional` runs as a task (`required` ones always do). */
export type TaskMode = "auto" | "never" | "always";

/** A task a server runs for us, as `toolbridge tasks` lists it. */
export interface HubTask extends Task {
  server: string;
  /** The tool, when this hub started the task. */
  tool?: string;
}

export type {
  CallToolResult,
  CompleteRequestParams,
  CompleteResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  CreateMessageResultWithTools,
  GetPromptResult,
  LoggingLevel,
  ReadResourceResult,
  Root,
  Task,
};
