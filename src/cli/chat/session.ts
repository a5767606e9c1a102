import { Agent } from "../../agent/agent.js";
import { toolAllowList } from "../../config/llm-config.js";
import { loadConfig } from "../../config/load.js";
import { ProviderSchema, ToolModeSchema, type LlmConfig } from "../../config/schema.js";
import { createChatModel } from "../../llm/create-model.js";
import type { ChatModel, Message } from "../../llm/types.js";
import { Hub } from "../../mcp/hub.js";
import type { ServerState } from "../../mcp/types.js";
import { UsageError } from "../errors.js";

/** The flags `run` and `chat` share. */
export interface AgentFlags {
  config?: string;
  baseUrl?: string;
  model?: string;
  provider?: string;
  toolMode?: string;
  maxIterations?: string;
  verbose?: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Everything one `run` or `chat` needs: the config read, the servers connected, the model
 * ready and an agent over them. `close()` stops the servers.
 */
export class AgentSession {
  private constructor(
    readonly hub: Hub,
    readonly llm: LlmConfig,
    private readonly env: Env,
    private readonly buildAgent: (model: ChatModel, messages: readonly Message[]) => Agent,
    public agent: Agent,
  ) {}

  /** `warn` gets one line per server that failed to start (the session goes on without it). */
  static async open(flags: AgentFlags, env: Env, warn: (line: string) => void): Promise<AgentSession> {
    const { config } = loadConfig({ env, ...(flags.config ? { file: flags.config } : {}) });
    const llm = applyFlags(config.llm ?? {}, flags);
    // The servers start while the model server is asked which model it serves.
    const [hubResult, modelResult] = await Promise.allSettled([Hub.connect(config.mcpServers), createChatModel(llm, env)]);
    if (modelResult.status === "rejected") {
      if (hubResult.status === "fulfilled") await hubResult.value.close();
      throw modelResult.reason;
    }
    if (hubResult.status === "rejected") throw hubResult.reason;
    const hub = hubResult.value;
    for (const state of hub.servers()) if (state.status === "failed") warn(describeFailedServer(state));
    const buildAgent = (model: ChatModel, messages: readonly Message[]): Agent =>
      new Agent({
        model,
        tools: hub,
        toolFilter: toolAllowList(config),
        messages,
        ...pickAgentSettings(llm),
      });
    return new AgentSession(hub, llm, env, buildAgent, buildAgent(modelResult.value, []));
  }

  /** Where requests go, for display. */
  get endpoint(): { url: string; model: string } {
    return { url: this.llm.baseURL ?? this.env.OPENAI_BASE_URL ?? "the local model server", model: this.agent.model.modelId };
  }

  /** Switches the model and keeps the conversation. */
  async switchModel(model: string): Promise<void> {
    const next = await createChatModel({ ...this.llm, model }, this.env);
    this.agent = this.buildAgent(next, this.agent.messages);
  }

  close(): Promise<void> {
    return this.hub.close();
  }
}

function pickAgentSettings(llm: LlmConfig) {
  return {
    ...(llm.systemPrompt !== undefined ? { systemPrompt: llm.systemPrompt } : {}),
    ...(llm.maxIterations !== undefined ? { maxIterations: llm.maxIterations } : {}),
    ...(llm.maxToolResultChars !== undefined ? { maxToolResultChars: llm.maxToolResultChars } : {}),
    ...(llm.toolChoice !== undefined ? { toolChoice: llm.toolChoice } : {}),
    ...(llm.temperature !== undefined ? { temperature: llm.temperature } : {}),
    ...(llm.maxTokens !== undefined ? { maxTokens: llm.maxTokens } : {}),
    ...(llm.toolMode !== undefined ? { toolMode: llm.toolMode } : {}),
  };
}

/** Flags win over the config file. */
export function applyFlags(llm: LlmConfig, flags: AgentFlags): LlmConfig {
  const out: LlmConfig = { ...llm };
  if (flags.baseUrl !== undefined) {
    if (!URL.canParse(flags.baseUrl)) throw new UsageError(`--base-url: "${flags.baseUrl}" is not a URL (e.g. http://127.0.0.1:8000/v1)`);
    out.baseURL = flags.baseUrl;
  }
  if (flags.model !== undefined) out.model = flags.model;
  if (flags.provider !== undefined) {
    const provider = ProviderSchema.safeParse(flags.provider);
    if (!provider.success) throw new UsageError(`--provider: "${flags.provider}" is not one of ${ProviderSchema.options.join(", ")}`);
    out.provider = provider.data;
  }
  if (flags.toolMode !== undefined) {
    const mode = ToolModeSchema.safeParse(flags.toolMode);
    if (!mode.success) throw new UsageError(`--tool-mode: "${flags.toolMode}" is not one of ${ToolModeSchema.options.join(", ")}`);
    out.toolMode = mode.data;
  }
  if (flags.maxIterations !== undefined) {
    const n = Number(flags.maxIterations);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--max-iterations: "${flags.maxIterations}" is not a whole number of 1 or more`);
    out.maxIterations = n;
  }
  return out;
}

function describeFailedServer(state: ServerState): string {
  return `server "${state.name}" failed to start: ${state.error ?? "unknown error"} (its tools are not available)`;
}
