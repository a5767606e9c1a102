import { registerSecret } from "../config/redact.js";
import type { LlmConfig } from "../config/schema.js";
import { findLocalServer, firstListedModel, normalizeBaseURL, OLLAMA_DEFAULT, VLLM_DEFAULT, type LocalServer } from "./discovery.js";
import { configError, LlmError } from "./errors.js";
import { fallbackModel } from "./local-fallback.js";
import type { RetryOptions } from "./retry.js";
import type { StrictToolsMemory } from "./strict-tools.js";
import type { ModelOptions } from "./streaming-model.js";
import type { ChatModel } from "./types.js";

export type Provider = NonNullable<LlmConfig["provider"]>;

export interface CreateChatModelOptions {
  retry?: RetryOptions;
  /** How long each local server may take to answer `/models` while looking for one. Default 3000 ms. */
  probeTimeoutMs?: number;
  /** Where to look when no base URL is given (default: vLLM's then Ollama's default address). */
  localServers?: readonly LocalServer[];
  /** Where a server's refusal of strict tool calls is remembered (default: this process). */
  strictMemory?: StrictToolsMemory;
  /** Told, in one line, that no model server answered and the local model is used instead, or that llama.cpp's runtime was installed. */
  onNotice?: (line: string) => void;
  /** Provider local: told how a model file being downloaded (`hf:...`) comes along. */
  onDownloadProgress?: (received: number, total: number) => void;
  /**
   * Provider local, when llama.cpp's runtime (node-llama-cpp) is not installed: asked whether
   * to install it now (into localRuntimeDir, CPU build). Without it, or answered false, the
   * "runtime-missing" error says how to install it.
   */
  offerRuntimeInstall?: () => Promise<boolean>;
  /** Told how that install comes along: packages fetched so far, and `done` once it has ended. */
  onRuntimeProgress?: (fetched: number, done: boolean) => void;
}

const VLLM_START = "start it with `vllm serve MODEL --enable-auto-tool-choice --tool-call-parser hermes`";
const OLLAMA_START = "start it with `ollama serve`";

/**
 * The model the llm settings describe. Base URL: `baseURL`, else `OPENAI_BASE_URL` (for
 * the OpenAI-compatible family), else the first local server that answers (vLLM at
 * :8000, then Ollama at :11434). Model: `model`, else the first one the server lists.
 * API key: `apiKey`, else the variable named by `apiKeyEnv`, else the provider's usual one.
 * Provider local: `model` is a GGUF file, or `hf:OWNER/REPO/FILE.gguf[#REVISION]` downloaded once into
 * the cache (`HF_ENDPOINT` names another hub). When no base URL is given, none of the local
 * servers answers and no model is named, `llm.localModel` (else the GGUF downloaded last) is
 * run instead, and `onNotice` told.
 * `env` is handed in: this layer never reads process.env.
 *
 * Each adapter module is imported only once its provider is chosen: the SDKs take a
 * noticeable part of a second to load, and a run uses one of them.
 */
export async function createChatModel(
  llm: LlmConfig,
  env: Record<string, string | undefined>,
  options: CreateChatModelOptions = {},
): Promise<ChatModel> {
  const provider: Provider = llm.provider ?? "openai-compatible";
  const common: Omit<ModelOptions, "model"> = {
    ...(llm.temperature !== undefined ? { temperature: llm.temperature } : {}),
    ...(llm.maxTokens !== undefined ? { maxTokens: llm.maxTokens } : {}),
    ...(llm.extraBody ? { extraBody: llm.extraBody } : {}),
    ...(llm.requestTimeoutMs !== undefined ? { requestTimeoutMs: llm.requestTimeoutMs } : {}),
    ...(llm.maxAnswerChars !== undefined ? { maxAnswerChars: llm.maxAnswerChars } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  };

  if (provider === "local") {
    if (!llm.model) throw configError("Name the model file to run: --model PATH.gguf (llm.model).");
    const [{ LocalModel }, { modelCacheDir, modelFile }, { localRuntimeDir }] = await Promise.all([
      import("./local-model.js"),
      import("./model-download.js"),
      import("./runtime-install.js"),
    ]);
    // The runtime first: asked about (and installed) before a model is downloaded for it.
    const runtimeDir = localRuntimeDir(env);
    await readyRuntime(runtimeDir, env, options);
    const path = await modelFile(llm.model, {
      cacheDir: modelCacheDir(env),
      ...(env.HF_ENDPOINT ? { endpoint: env.HF_ENDPOINT } : {}),
      ...(options.onDownloadProgress ? { onProgress: options.onDownloadProgress } : {}),
    });
    return LocalModel.open({
      path,
      modelId: llm.model,
      ...(llm.temperature !== undefined ? { temperature: llm.temperature } : {}),
      ...(llm.maxTokens !== undefined ? { maxTokens: llm.maxTokens } : {}),
      ...(llm.threads !== undefined ? { threads: llm.threads } : {}),
      ...(llm.contextSize !== undefined ? { contextSize: llm.contextSize } : {}),
      runtimeDir,
    });
  }

  if (provider === "anthropic" || provider === "gemini") {
    const usual = provider === "anthropic" ? ["ANTHROPIC_API_KEY"] : ["GEMINI_API_KEY", "GOOGLE_API_KEY"];
    const apiKey = pickApiKey(llm, env, usual);
    if (!apiKey) throw configError(`No API key for ${provider}: set ${usual.join(" or ")}, or name a variable in llm.apiKeyEnv.`);
    if (!llm.model) throw configError(`Name the ${provider} model to use (llm.model).`);
    const settings = { ...common, apiKey, model: llm.model, ...(llm.baseURL ? { baseURL: llm.baseURL.replace(/\/+$/, "") } : {}) };
    if (provider === "anthropic") {
      const { AnthropicModel } = await import("./anthropic.js");
      return new AnthropicModel(settings);
    }
    const { GeminiModel } = await import("./gemini.js");
    return new GeminiModel(settings);
  }

  const probeTimeoutMs = options.probeTimeoutMs ?? 3000;
  const fromEnv = !llm.baseURL && env.OPENAI_BASE_URL ? env.OPENAI_BASE_URL : undefined;
  const apiKey = openAIFamilyApiKey(llm, env);

  let baseURL = llm.baseURL ?? fromEnv;
  let listed: string[] | undefined;
  if (baseURL) {
    baseURL = normalizeBaseURL(baseURL);
  } else if (provider === "openai") {
    baseURL = "https://api.openai.com/v1";
  } else {
    const candidates =
      options.localServers ?? (provider === "vllm" ? [VLLM_DEFAULT] : provider === "ollama" ? [OLLAMA_DEFAULT] : [VLLM_DEFAULT, OLLAMA_DEFAULT]);
    let found;
    try {
      found = await findLocalServer(candidates, apiKey, probeTimeoutMs);
    } catch (error) {
      // Nothing listens, no model is named, and one can run here: say so and run it.
      const local = provider === "openai-compatible" && !llm.model && error instanceof LlmError && error.code === "connection" ? await fallbackModel(llm, env) : undefined;
      if (!local) throw error;
      options.onNotice?.(`No model server answers at ${candidates.map((c) => c.baseURL).join(" or ")}; using the local model ${local}.`);
      return createChatModel({ ...llm, provider: "local", model: local }, env, options);
    }
    baseURL = found.server.baseURL;
    listed = found.models;
  }

  if (provider === "openai" && !apiKey) throw configError("No API key for openai: set OPENAI_API_KEY, or name a variable in llm.apiKeyEnv.");
  if (provider === "openai" && !llm.model) throw configError("Name the OpenAI model to use (llm.model).");
  const model = llm.model ?? (await firstListedModel(baseURL, apiKey, probeTimeoutMs, listed));

  const { OpenAICompatibleModel } = await import("./openai-compatible.js");
  return new OpenAICompatibleModel({
    ...common,
    baseURL,
    model,
    provider,
    ...(apiKey ? { apiKey } : {}),
    ...(provider === "ollama" ? { schema: { inlineRefs: true }, startHint: OLLAMA_START } : {}),
    ...(provider === "vllm" ? { startHint: VLLM_START } : {}),
    // vLLM holds calls to the schemas when asked (and says so when it cannot); OpenAI's strict
    // wants schemas rewritten, and Ollama has no such switch.
    strictTools: provider === "vllm" || provider === "openai-compatible",
    ...(options.strictMemory ? { strictMemory: options.strictMemory } : {}),
  });
}

/** llama.cpp's runtime loaded; when it is not installed, installed first if the person agrees (offerRuntimeInstall). */
async function readyRuntime(dir: string, env: Record<string, string | undefined>, options: CreateChatModelOptions): Promise<void> {
  const { localRuntime } = await import("./local-runtime.js");
  try {
    await localRuntime(dir);
    return;
  } catch (error) {
    if (!(error instanceof LlmError && error.code === "runtime-missing") || !(await options.offerRuntimeInstall?.())) throw error;
  }
  const { installLocalRuntime, NODE_LLAMA_CPP_VERSION } = await import("./runtime-install.js");
  await installLocalRuntime({ dir, env, ...(options.onRuntimeProgress ? { onProgress: options.onRuntimeProgress } : {}) });
  await localRuntime(dir);
  options.onNotice?.(`Installed node-llama-cpp ${NODE_LLAMA_CPP_VERSION} (CPU build) into ${dir}.`);
}

/** The key for an OpenAI-compatible server (undefined for Anthropic and Gemini, which have their own). */
export function openAIFamilyApiKey(llm: LlmConfig, env: Record<string, string | undefined>): string | undefined {
  const provider: Provider = llm.provider ?? "openai-compatible";
  if (provider === "anthropic" || provider === "gemini" || provider === "local") return undefined;
  const fromEnv = !llm.baseURL && env.OPENAI_BASE_URL;
  // OPENAI_API_KEY goes to OpenAI, or to the server OPENAI_BASE_URL names next to it; never
  // to a local server found by looking around.
  return pickApiKey(llm, env, provider === "openai" || fromEnv ? ["OPENAI_API_KEY"] : provider === "vllm" ? ["VLLM_API_KEY"] : []);
}

/** The key, registered as a secret: a server that quotes it in an error does not get it printed. */
function pickApiKey(llm: LlmConfig, env: Record<string, string | undefined>, usual: readonly string[]): string | undefined {
  const key = findApiKey(llm, env, usual);
  registerSecret(key);
  return key;
}

function findApiKey(llm: LlmConfig, env: Record<string, string | undefined>, usual: readonly string[]): string | undefined {
  if (llm.apiKey) return llm.apiKey;
  if (llm.apiKeyEnv) {
    const value = env[llm.apiKeyEnv];
    if (!value) throw configError(`The environment variable ${llm.apiKeyEnv} named by llm.apiKeyEnv is not set.`);
    return value;
  }
  for (const name of usual) if (env[name]) return env[name];
  return undefined;
}
