import { Agent } from "../agent/agent.js";
import { ApprovalPolicy, type ApprovalMode, type ApprovalRules, type ApproveCallback, type ServerApprovalConfig } from "../agent/approval.js";
import type { AgentEvent, ToolCallRecord, TurnResult } from "../agent/events.js";
import { parseToolArguments } from "../agent/tool-arguments.js";
import { ToolCatalog, type ToolFilter, type ToolHost } from "../agent/tool-host.js";
import { runToolCalls } from "../agent/tool-runner.js";
import type { SkillHost } from "../agent/skills.js";
import type { ProbedMode } from "../agent/tool-mode.js";
import type { ToolMode } from "../config/schema.js";
import type { SessionSettings } from "../host/session-settings.js";
import type { ChatModel, ToolCall } from "../llm/types.js";
import type { HubTool } from "../mcp/types.js";
import type { GatewayMetrics } from "./metrics.js";
import type { AgentRequest } from "./openai-wire.js";

/**
 * What every turn of the gateway shares: the hub, the session settings of src/host (see
 * turnSettings), the approval policy. Nothing of one request.
 */
export interface TurnSettings extends Partial<SessionSettings> {
  tools: ToolHost;
  /** Servers' skills, offered through `load_skill` as `run` and `chat` offer them. */
  skills?: SkillHost;
  approve: ApprovalMode;
  /** The configured servers (their approval keys, and the URL of a remote one). */
  servers: Readonly<Record<string, ServerApprovalConfig & { url?: string }>>;
  /** The config's allow and deny rules by pattern. */
  rules?: ApprovalRules;
  toolTimeoutMs?: number;
  /** In tool mode "auto": the mode a model's probe found best (the host's session model), its turns started in. */
  probedMode?: (model: ChatModel) => ProbedMode | undefined;
}

export interface TurnOptions {
  model: ChatModel;
  temperature?: number;
  maxTokens?: number;
  signal: AbortSignal;
  onEvent: (event: AgentEvent) => void;
  /** The web chat's buttons; API clients have nobody to ask. */
  ask?: ApproveCallback;
  /** Narrows the tools offered for this request (the Responses API's `mcp` tools). */
  toolFilter?: ToolFilter;
  /** Hub tool calls this request may run (the Responses API's `max_tool_calls`). */
  maxToolCalls?: number;
}

/**
 * Runs the agent over one request's conversation. Each turn gets its own agent and its own
 * approval policy, so nothing of one client reaches another; only the hub is shared. A model
 * found to refuse native tools is remembered, so later turns go to prompt mode at once
 * instead of each paying for the refused request (auto mode only).
 */
export class TurnRunner {
  private readonly promptModels = new Set<string>();

  constructor(
    private readonly settings: TurnSettings,
    private readonly metrics: GatewayMetrics,
  ) {}

  /** Hub tools the client's own tools shadow (the client's win), for the caller to report. */
  shadowed(request: AgentRequest): string[] {
    const names = new Set(request.clientTools.map((tool) => tool.name));
    return this.offered().filter((tool) => names.has(tool.name)).map((tool) => tool.name);
  }

  offered(): readonly HubTool[] {
    const tools = this.settings.tools.tools();
    return this.settings.toolFilter ? tools.filter(this.settings.toolFilter) : tools;
  }

  toolMode(model: ChatModel): "native" | "prompt" {
    const configured = this.settings.toolMode ?? "auto";
    if (configured === "auto") return this.promptModels.has(key(model)) ? "prompt" : "native";
    return configured === "prompt" ? "prompt" : "native";
  }

  /** The operator's approval policy, fresh (nothing allowed for a session). */
  policy(): ApprovalPolicy {
    return new ApprovalPolicy({ mode: this.settings.approve, servers: this.settings.servers, ...(this.settings.rules ? { rules: this.settings.rules } : {}) });
  }

  /**
   * Runs one call the client approved (the Responses API's `mcp_approval_response`): that
   * tool, those arguments, checked against the tool's schema as it is now.
   */
  async runApproved(call: ToolCall, signal: AbortSignal): Promise<ToolCallRecord> {
    const catalog = new ToolCatalog(this.settings.tools, this.settings.toolFilter);
    catalog.refresh();
    const servers = new Map(catalog.tools.map((tool) => [tool.name, tool.server]));
    const [record] = await runToolCalls([{ call, args: parseToolArguments(call.arguments) }], {
      host: this.settings.tools,
      catalog,
      signal,
      toolTimeoutMs: this.settings.toolTimeoutMs,
      approval: { policy: this.policy(), ask: async () => ({ decision: "allow-once" }) },
      emit: () => undefined,
      skipped: new Map(),
      ...(this.settings.hooks ? { hooks: this.settings.hooks } : {}),
    });
    const done = record as ToolCallRecord;
    this.metrics.toolCalls.inc({ server: servers.get(call.name) ?? "none", outcome: done.outcome });
    return done;
  }

  async run(request: AgentRequest, options: TurnOptions): Promise<TurnResult> {
    const { settings } = this;
    const configured = settings.toolMode ?? "auto";
    const toolMode: ToolMode = configured === "auto" && this.promptModels.has(key(options.model)) ? "prompt" : configured;
    const systemPrompt = [settings.systemPrompt, request.system].filter((part) => part !== undefined && part !== "").join("\n\n");
    const toolChoice = request.toolChoice ?? settings.toolChoice;
    const toolFilter = both(settings.toolFilter, options.toolFilter);
    const probedMode = settings.probedMode?.(options.model);
    const agent = new Agent({
      model: this.metrics.instrument(options.model),
      tools: settings.tools,
      ...(settings.skills ? { skills: settings.skills } : {}),
      ...(settings.hooks ? { hooks: settings.hooks } : {}),
      messages: request.history,
      clientTools: request.clientTools,
      approval: {
        policy: this.policy(),
        ...(options.ask ? { ask: options.ask } : {}),
      },
      toolMode,
      ...(probedMode ? { probedMode } : {}),
      ...(toolFilter ? { toolFilter } : {}),
      ...(settings.toolSearch ? { toolSearch: settings.toolSearch } : {}),
      ...(settings.promptFormat !== undefined ? { promptFormat: settings.promptFormat } : {}),
      ...(systemPrompt !== "" ? { systemPrompt } : {}),
      ...(settings.maxIterations !== undefined ? { maxIterations: settings.maxIterations } : {}),
      ...(settings.maxToolResultChars !== undefined ? { maxToolResultChars: settings.maxToolResultChars } : {}),
      ...(settings.toolTimeoutMs !== undefined ? { toolTimeoutMs: settings.toolTimeoutMs } : {}),
      ...(toolChoice !== undefined ? { toolChoice } : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      ...(options.maxToolCalls !== undefined ? { maxToolCalls: options.maxToolCalls } : {}),
      ...(request.generation ? { generation: request.generation } : {}),
      ...(request.responseFormat ? { responseFormat: request.responseFormat } : {}),
    });
    const servers = new Map(settings.tools.tools().map((tool) => [tool.name, tool.server]));
    this.metrics.inFlight.inc();
    try {
      return await agent.send(request.input, {
        signal: options.signal,
        onEvent: (event) => {
          if (event.type === "model-request") this.metrics.rounds.inc();
          else if (event.type === "tool-call-finished") this.metrics.toolCalls.inc({ server: servers.get(event.name) ?? "none", outcome: event.outcome });
          else if (event.type === "notice" && event.code === "prompt-mode") this.promptModels.add(key(options.model));
          options.onEvent(event);
        },
      });
    } finally {
      this.metrics.inFlight.dec();
    }
  }
}

/** What the log says of a finished turn (one JSON line per turn, whatever the API). */
export function turnLogFields(turn: TurnResult): Record<string, unknown> {
  return {
    status: turn.status,
    stopReason: turn.stopReason,
    rounds: turn.iterations,
    toolCalls: turn.toolCalls.map((call) => ({ name: call.name, outcome: call.outcome })),
    usage: turn.usage,
    durationMs: Math.round(turn.durationMs),
    ...(turn.error ? { error: turn.error.code } : {}),
  };
}

function both(first: ToolFilter | undefined, second: ToolFilter | undefined): ToolFilter | undefined {
  if (!first || !second) return first ?? second;
  return (tool) => first(tool) && second(tool);
}

function key(model: ChatModel): string {
  return `${model.provider} ${model.baseURL ?? ""} ${model.modelId}`;
}
