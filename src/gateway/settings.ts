import type { ApprovalMode } from "../agent/approval.js";
import { toolAllowList } from "../config/llm-config.js";
import type { ResolvedConfig } from "../config/load.js";
import type { LlmConfig } from "../config/schema.js";
import type { TurnSettings } from "./turns.js";

/**
 * What every turn of the gateway runs with, from the config: the model settings as `run`
 * and `chat` read them, the allow-list, and the approval policy (`gateway.approve`, "ask"
 * by default: API clients cannot be asked, so only trusted servers and listed tools run).
 */
export function turnSettings(config: ResolvedConfig, llm: LlmConfig, approve?: ApprovalMode): Omit<TurnSettings, "tools"> {
  return {
    toolFilter: toolAllowList(config),
    approve: approve ?? config.gateway?.approve ?? "ask",
    servers: config.mcpServers,
    ...(llm.systemPrompt !== undefined ? { systemPrompt: llm.systemPrompt } : {}),
    ...(llm.maxIterations !== undefined ? { maxIterations: llm.maxIterations } : {}),
    ...(llm.maxToolResultChars !== undefined ? { maxToolResultChars: llm.maxToolResultChars } : {}),
    ...(llm.toolChoice !== undefined ? { toolChoice: llm.toolChoice } : {}),
    ...(llm.toolMode !== undefined ? { toolMode: llm.toolMode } : {}),
  };
}
