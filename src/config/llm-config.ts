import type { Config, LlmConfig } from "./schema.js";

/**
 * The model settings of a config: its `llm` section, with seed 003's `vllm` section
 * (`{baseURL, model, systemPrompt}`) read as an `llm` section for provider vLLM. Where
 * both are present, `llm` wins key by key.
 */
export function resolveLlmConfig(config: Pick<Config, "llm" | "vllm">): LlmConfig {
  const { vllm, llm } = config;
  if (!vllm) return { ...llm };
  const fromVllm: LlmConfig = { provider: "vllm" };
  if (vllm.baseURL !== undefined) fromVllm.baseURL = vllm.baseURL;
  if (vllm.model !== undefined) fromVllm.model = vllm.model;
  if (vllm.systemPrompt !== undefined) fromVllm.systemPrompt = vllm.systemPrompt;
  return { ...fromVllm, ...llm };
}

/** A tool as the allow-list sees it: its exposed name and the name its server gave it. */
export interface NamedTool {
  name: string;
  originalName: string;
}

/**
 * The config's `tools` section as a predicate: with `enabled`, only the tools it names
 * (exposed or original name) are offered to the model; `disabled` removes tools and wins.
 */
export function toolAllowList(config: Pick<Config, "tools">): (tool: NamedTool) => boolean {
  const enabled = config.tools?.enabled ? new Set(config.tools.enabled) : undefined;
  const disabled = new Set(config.tools?.disabled ?? []);
  const named = (set: ReadonlySet<string>, tool: NamedTool) => set.has(tool.name) || set.has(tool.originalName);
  return (tool) => !named(disabled, tool) && (enabled === undefined || named(enabled, tool));
}
