import type { ToolFilter } from "../agent/tool-host.js";
import type { ToolSearchSettings } from "../agent/tool-offer.js";
import { toolAllowList } from "../config/llm-config.js";
import type { ResolvedConfig } from "../config/load.js";
import type { LlmConfig, ToolMode } from "../config/schema.js";
import type { ToolChoice } from "../llm/types.js";
import type { PromptFormat } from "../toolcall/prompt-families.js";
import { toolSearchSettings } from "./tool-search-settings.js";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * What every agent of a session runs with, read from the config the one way every front end
 * (`run`, `chat`, the gateway's APIs, the web chat) shares: the tool offer (the allow-list,
 * tool search) and the model settings (prompt format, tool mode, limits). A front end adds
 * only what is its own: the model, the approval policy, who is asked.
 */
export interface SessionSettings {
  toolFilter: ToolFilter;
  toolSearch: ToolSearchSettings;
  systemPrompt?: string;
  maxIterations?: number;
  maxToolResultChars?: number;
  toolChoice?: ToolChoice;
  toolMode?: ToolMode;
  promptFormat?: PromptFormat | "auto";
}

/** The session settings of `config`, with `llm` its model section as the command's flags left it. */
export function sessionSettings(config: ResolvedConfig, llm: LlmConfig, env: Env): SessionSettings {
  return {
    toolFilter: toolAllowList(config),
    toolSearch: toolSearchSettings(config.tools?.search, env),
    ...(llm.systemPrompt !== undefined ? { systemPrompt: llm.systemPrompt } : {}),
    ...(llm.maxIterations !== undefined ? { maxIterations: llm.maxIterations } : {}),
    ...(llm.maxToolResultChars !== undefined ? { maxToolResultChars: llm.maxToolResultChars } : {}),
    ...(llm.toolChoice !== undefined ? { toolChoice: llm.toolChoice } : {}),
    ...(llm.toolMode !== undefined ? { toolMode: llm.toolMode } : {}),
    ...(llm.promptFormat !== undefined ? { promptFormat: llm.promptFormat } : {}),
  };
}
