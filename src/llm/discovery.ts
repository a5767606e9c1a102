import { isApiContentType, LlmError, notOpenAICompatible, START_LOCAL_SERVER_HINT } from "./errors.js";

/** A local OpenAI-compatible server worth trying when no base URL is given. */
export interface LocalServer {
  name: string;
  baseURL: string;
}

export const VLLM_DEFAULT: LocalServer = { name: "vLLM", baseURL: "http://127.0.0.1:8000/v1" };
export const OLLAMA_DEFAULT: LocalServer = { name: "Ollama", baseURL: "http://127.0.0.1:11434/v1" };

/**
 * A base URL as the OpenAI SDK wants it. A bare `http://host:port` (seed 003's config
 * has `http://192.168.1.63:30327`, vLLM serving under /v1) gets `/v1`; any other path is
 * the user's choice (a proxy prefix) and stays.
 */
export function normalizeBaseURL(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return new URL(trimmed).pathname.replace(/\/+$/, "") === "" ? `${trimmed}/v1` : trimmed;
}

/** The model ids a server lists at `/models`, in its order. */
export async function listModels(baseURL: string, apiKey: string | undefined, timeoutMs: number): Promise<string[]> {
  // Loaded on use, like the adapters in create-model.ts: importing this module loads no SDK.
  const { createOpenAIClient, toLlmError } = await import("./openai-compatible.js");
  const client = createOpenAIClient(baseURL, apiKey, timeoutMs);
  let listed;
  try {
    listed = await client.models.list().withResponse();
  } catch (err) {
    throw toLlmError(err, baseURL, { timeoutMs, startHint: START_LOCAL_SERVER_HINT });
  }
  const contentType = listed.response.headers.get("content-type");
  if (!isApiContentType(contentType)) throw notOpenAICompatible(baseURL, contentType ?? "");
  return listed.data.data.map((model) => model.id);
}

/**
 * The first of the candidate servers that answers `/models`. Nothing listening at one is
 * expected and moves on to the next; any other failure is the answer.
 */
export async function findLocalServer(
  candidates: readonly LocalServer[],
  apiKey: string | undefined,
  timeoutMs: number,
): Promise<{ server: LocalServer; models: string[] }> {
  for (const server of candidates) {
    try {
      return { server, models: await listModels(server.baseURL, apiKey, timeoutMs) };
    } catch (err) {
      if (err instanceof LlmError && (err.code === "connection" || err.code === "timeout")) continue;
      throw err;
    }
  }
  const where = candidates.map((c) => `${c.baseURL} (${c.name})`).join(" or ");
  throw new LlmError(
    "connection",
    `No model server found at ${where}: ${START_LOCAL_SERVER_HINT}, or give its base URL (--base-url URL, llm.baseURL in the config, or OPENAI_BASE_URL).`,
    { url: candidates[0]?.baseURL },
  );
}

/** The model to use when none is named: the first the server lists. */
export async function firstListedModel(baseURL: string, apiKey: string | undefined, timeoutMs: number, known?: string[]): Promise<string> {
  const models = known ?? (await listModels(baseURL, apiKey, timeoutMs));
  const first = models[0];
  if (first === undefined) {
    throw new LlmError("bad-response", `The model server at ${baseURL} lists no models at /models; name one (llm.model).`, { url: baseURL });
  }
  return first;
}


/**
 * A model a person named (chat's `/model NAME`), checked against what the server lists:
 * one it does not list is refused, naming those it does. Gives the list.
 */
export async function requireListedModel(baseURL: string, apiKey: string | undefined, timeoutMs: number, name: string): Promise<string[]> {
  const models = await listModels(baseURL, apiKey, timeoutMs);
  if (!models.includes(name)) {
    const listed = models.length > 0 ? `it lists ${models.slice(0, 20).join(", ")}${models.length > 20 ? ` and ${models.length - 20} more` : ""}` : "it lists none";
    throw new LlmError("config", `The model server at ${baseURL} does not serve "${name}"; ${listed}.`, { url: baseURL });
  }
  return models;
}
