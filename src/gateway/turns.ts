import { Agent } from "../agent/agent.js";
import { ApprovalPolicy, type ApprovalMode, type ApproveCallback, type ServerApprovalConfig } from "../agent/approval.js";
import type { AgentEvent, TurnResult } from "../agent/events.js";
import type { ToolFilter, ToolHost } from "../agent/tool-host.js";
import type { ToolMode } from "../config/schema.js";
import type { ChatModel, ToolChoice } from "../llm/types.js";
import type { HubTool } from "../mcp/types.js";
import type { GatewayMetrics } from "./metrics.js";
import type { AgentRequest } from "./openai-wire.js";

/** What every turn of the gateway shares: the hub, the models, the settings. Nothing of one request. */
export interface TurnSettings {
  tools: ToolHost;
  toolFilter?: ToolFilter;
  approve: ApprovalMode;
  servers: Readonly<Record<string, ServerApprovalConfig>>;
  systemPrompt?: string;
  maxIterations?: number;
  maxToolResultChars?: number;
  toolMode?: ToolMode;
  toolChoice?: ToolChoice;
  toolTimeoutMs?: number;
}

export interface TurnOptions {
  model: ChatModel;
  temperature?: number;
  maxTokens?: number;
  signal: AbortSignal;
  onEvent: (event: AgentEvent) => void;
  /** The web chat's buttons; API clients have nobody to ask. */
  ask?: ApproveCallback;
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

  async run(request: AgentRequest, options: TurnOptions): Promise<TurnResult> {
    const { settings } = this;
    const configured = settings.toolMode ?? "auto";
    const toolMode: ToolMode = configured === "auto" && this.promptModels.has(key(options.model)) ? "prompt" : configured;
    const systemPrompt = [settings.systemPrompt, request.system].filter((part) => part !== undefined && part !== "").join("\n\n");
    const toolChoice = request.toolChoice ?? settings.toolChoice;
    const agent = new Agent({
      model: this.metrics.instrument(options.model),
      tools: settings.tools,
      messages: request.history,
      clientTools: request.clientTools,
      approval: {
        policy: new ApprovalPolicy({ mode: settings.approve, servers: settings.servers }),
        ...(options.ask ? { ask: options.ask } : {}),
      },
      toolMode,
      ...(settings.toolFilter ? { toolFilter: settings.toolFilter } : {}),
      ...(systemPrompt !== "" ? { systemPrompt } : {}),
      ...(settings.maxIterations !== undefined ? { maxIterations: settings.maxIterations } : {}),
      ...(settings.maxToolResultChars !== undefined ? { maxToolResultChars: settings.maxToolResultChars } : {}),
      ...(settings.toolTimeoutMs !== undefined ? { toolTimeoutMs: settings.toolTimeoutMs } : {}),
      ...(toolChoice !== undefined ? { toolChoice } : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
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

function key(model: ChatModel): string {
  return `${model.provider} ${model.baseURL ?? ""} ${model.modelId}`;
}
