import type { ToolFilter } from "../agent/tool-host.js";
import type { ToolSearchSettings } from "../agent/tool-offer.js";
import { toolAllowList } from "../config/llm-config.js";
import type { ResolvedConfig } from "../config/load.js";
import type { LlmConfig } from "../config/schema.js";
import type { Hooks } from "../agent/hooks.js";
import { sessionHooks } from "./session-hooks.js";
import { toolSearchSettings } from "./tool-search-settings.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The model section's settings an agent takes as they are. */
const AGENT_LLM_KEYS = ["systemPrompt", "maxIterations", "maxToolResultChars", "toolChoice", "toolMode", "promptFormat"] as const;

/**
 * What every agent of a session runs with, read from the config the one way every front end
 * (`run`, `chat`, the gateway's APIs, the web chat, the library) shares: the tool offer (the
 * allow-list, tool search), the hooks, and the model settings (prompt format, tool mode, limits). A front
 * end adds only what is its own: the model, the approval policy, who is asked.
 */
export type SessionSettings = Pick<LlmConfig, (typeof AGENT_LLM_KEYS)[number]> & {
  toolFilter: ToolFilter;
  toolSearch: ToolSearchSettings;
  /** The config's hooks, when there are any. */
  hooks?: Hooks;
};

/** The session settings of `config`, with `llm` its model section as the command's flags left it. */
export function sessionSettings(config: ResolvedConfig, llm: LlmConfig, env: Env): SessionSettings {
  const set = AGENT_LLM_KEYS.flatMap((key) => (llm[key] === undefined ? [] : [[key, llm[key]]]));
  const hooks = sessionHooks(config, env);
  return {
    ...(Object.fromEntries(set) as Pick<LlmConfig, (typeof AGENT_LLM_KEYS)[number]>),
    toolFilter: toolAllowList(config),
    toolSearch: toolSearchSettings(config.tools?.search, env),
    ...(hooks ? { hooks } : {}),
  };
}
