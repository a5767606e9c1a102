import { bestMode, PROBE_TIMEOUT_MS, probeToolModes, type ProbeRow } from "../agent/tool-mode-probe.js";
import type { ProbedMode } from "../agent/tool-mode.js";
import { toolCallingFor } from "../agent/tool-calling.js";
import { bestEvalMode } from "../agent/eval/runner.js";
import type { LlmConfig } from "../config/schema.js";
import type { ChatModel } from "../llm/types.js";
import type { ToolModeCache } from "./tool-mode-cache.js";

/**
 * The probe of one model, made and cached: the table, and the best mode found. The probe's
 * requests and time are bounded (see probeToolModes).
 */
export async function probeAndCache(model: ChatModel, llm: LlmConfig, cache: ToolModeCache | undefined, signal?: AbortSignal): Promise<ProbeRow[]> {
  const rows = await probeToolModes(model, {
    middlewares: toolCallingFor(llm.promptFormat),
    // A shorter request timeout in the settings bounds the probe too.
    ...(llm.requestTimeoutMs !== undefined ? { timeoutMs: Math.min(llm.requestTimeoutMs, PROBE_TIMEOUT_MS) } : {}),
    ...(signal ? { signal } : {}),
  });
  // A probe cut short by the user says nothing about the model.
  if (!signal?.aborted) cache?.saveProbe(model.baseURL ?? model.provider, model.modelId, rows);
  return rows;
}

/**
 * The mode a session in tool mode "auto" starts in. A cached eval of the model (`toolbridge
 * eval`) is followed first: its mode with the most tasks right. Else, with `auto` set (flag
 * or config), the first use of a model probes it (`say` tells the user, since it takes a few
 * requests); with no tool mode set, a probe already cached is followed and none is made.
 */
export async function probedModeFor(
  model: ChatModel,
  llm: LlmConfig,
  cache: ToolModeCache | undefined,
  say: (line: string) => void,
  signal?: AbortSignal,
): Promise<ProbedMode | undefined> {
  if (llm.toolMode !== undefined && llm.toolMode !== "auto") return undefined;
  const server = model.baseURL ?? model.provider;
  const measured = cache?.evalRows(server, model.modelId);
  const evaluated = measured && bestEvalMode(measured);
  if (evaluated) return evaluated;
  const cached = cache?.probe(server, model.modelId);
  if (cached) return bestMode(cached);
  if (llm.toolMode !== "auto") return undefined;
  say(`Probing how ${model.modelId} calls tools best (one request per mode, once per model)…`);
  const rows = await probeAndCache(model, llm, cache, signal);
  const best = bestMode(rows);
  say(best ? `${model.modelId}: ${best} tool calling.` : `${model.modelId} made no good tool call in any mode; native tool calling it is (toolbridge models probe shows why).`);
  return best;
}
