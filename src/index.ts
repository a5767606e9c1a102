// The public library API: everything a user of the package may rely on.
export type * from "./llm/types.js";
export { LlmError, type LlmErrorCode } from "./llm/errors.js";
export { createChatModel, type CreateChatModelOptions, type Provider } from "./llm/create-model.js";
export { OpenAICompatibleModel, type OpenAICompatibleOptions } from "./llm/openai-compatible.js";
export { AnthropicModel, type AnthropicOptions } from "./llm/anthropic.js";
export { GeminiModel, type GeminiOptions } from "./llm/gemini.js";
export { listModels, normalizeBaseURL, type LocalServer } from "./llm/discovery.js";
export type { RetryOptions } from "./llm/retry.js";
export { toOpenAIParameters } from "./llm/schema/openai.js";
export { toAnthropicInputSchema } from "./llm/schema/anthropic.js";
export { toGeminiParameters, type GeminiParameters } from "./llm/schema/gemini.js";
export type * from "./mcp/types.js";
export type { Config, ServerConfig, LlmConfig, ToolMode } from "./config/schema.js";
export { loadConfig, parseConfig, type LoadConfigOptions, type LoadedConfig, type ResolvedConfig } from "./config/load.js";
export { ConfigError } from "./config/errors.js";
export { resolveLlmConfig, toolAllowList } from "./config/llm-config.js";
export { createTimeServer } from "./servers/time/server.js";
export { createMathServer } from "./servers/math/server.js";
export { serveHttp, type ServerFactory, type HttpServeOptions, type HttpServerHandle } from "./servers/http.js";
export { serveStdio, type StdioServerHandle } from "./servers/stdio.js";
export { Hub, type HubOptions } from "./mcp/hub.js";
export { HubError, type HubErrorCode } from "./mcp/errors.js";
export { TOOL_NAME_PATTERN, sanitizeName, qualifiedName } from "./mcp/tool-names.js";
export {
  parseToolCalls,
  createToolCallParser,
  type ToolCallParser,
  type ToolCallParserEvent,
  type ToolCallParserOptions,
  type ParsedMessage,
} from "./toolcall/parser.js";
export type { ParsedToolCall, ToolList } from "./toolcall/call-shape.js";
export { buildToolPrompt, type ToolPromptOptions } from "./toolcall/prompt.js";
export { withPromptToolCalling, withTextToolCallFallback, type PromptToolCallingOptions } from "./toolcall/middleware.js";
export { Agent, DEFAULT_MAX_ITERATIONS, type AgentOptions, type SendOptions } from "./agent/agent.js";
export type { AgentEvent, AgentEventType, NoticeCode, StopReason, ToolCallRecord, ToolOutcome, TurnError, TurnResult } from "./agent/events.js";
export type { ToolHost, ToolFilter } from "./agent/tool-host.js";
export { SKILL_TOOL_NAME, type SkillHost } from "./agent/skills.js";
export {
  ApprovalPolicy,
  APPROVAL_MODES,
  type Approval,
  type ApprovalAnswer,
  type ApprovalMode,
  type ApprovalPolicyOptions,
  type ApproveCallback,
  type ApproveSamplingCallback,
  type SamplingApprovalRequest,
  type ServerApprovalConfig,
  type ToolApprovalRequest,
} from "./agent/approval.js";
export type { ToolCallingMiddlewares } from "./agent/tool-mode.js";
export { createSamplingHandler, type SamplingOptions } from "./agent/sampling.js";
export { DEFAULT_SAMPLING_LIMITS, type SamplingLimits } from "./agent/sampling-limits.js";
export { samplingRejected } from "./mcp/client-features.js";
export type { ToolSearchMode, ToolSearchSettings } from "./agent/tool-offer.js";
export { sessionSettings, type SessionSettings } from "./host/session-settings.js";
export { openHost, type OpenHostOptions, type OpenedHost } from "./host/open-host.js";
export { HostSession, sessionApproval, type HostSessionOptions, type SessionHandlerInputs, type SessionModelOptions } from "./host/host-session.js";
export type { SessionModel } from "./host/session-model.js";
export { EmbeddingRanker, ToolSearchIndex, SEARCH_TOOL, type Embed, type SearchableTool } from "./toolcall/tool-search.js";
export { detectPromptFormat, type PromptFormat } from "./toolcall/prompt-families.js";
export {
  loadTranscript,
  saveTranscript,
  parseTranscript,
  serializeTranscript,
  TRANSCRIPT_VERSION,
  type Transcript,
  type TranscriptHeader,
} from "./agent/transcript.js";
export { TranscriptError } from "./agent/errors.js";
export { startGateway, type GatewayOptions, type GatewayHandle, type GatewayHub } from "./gateway/server.js";
export { GatewayModels } from "./gateway/models.js";
export { createHubServer, type HubServerPolicy, type HubServerSource } from "./gateway/hub-server.js";
export { TaskStore, type TaskStoreOptions } from "./mcp/tasks/ext-tasks-server.js";
