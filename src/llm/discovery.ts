import { didYouMean } from "../config/unknown-keys.js";
import { endpointUrl } from "./endpoint-url.js";
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
  const parsed = new URL(url);
  // With a query, the path is changed in its place, before it.
  if (parsed.search !== "") return parsed.pathname.replace(/\/+$/, "") === "" ? endpointUrl(url, "/v1") : url;
  const trimmed = url.replace(/\/+$/, "");
  return parsed.pathname.replace(/\/+$/, "") === "" ? `${trimmed}/v1` : trimmed;
}

/** A model as a server lists it at `/models`. */
export interface ListedModel {
  id: string;
  /** The context length the server runs it with, when it says (vLLM and SGLang: `max_model_len`). */
  contextLength?: number;
  /** The entry as the server sent it, every field kept (vLLM's `max_model_len`, `root`, `permission`, ...). */
  listing?: Readonly<Record<string, unknown>>;
}

/** The model ids a server lists at `/models`, in its order. */
export async function listModels(baseURL: string, apiKey: string | undefined, timeoutMs: number): Promise<string[]> {
  return (await listModelInfo(baseURL, apiKey, timeoutMs)).map((model) => model.id);
}

/** The models a server lists at `/models`, in its order, with their context length where it gives one. */
export async function listModelInfo(baseURL: string, apiKey: string | undefined, timeoutMs: number): Promise<ListedModel[]> {
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
  return listed.data.data.map((model) => {
    // Not in OpenAI's type: vLLM's own field. Anything but a positive whole number is not believed.
    const length = (model as { max_model_len?: unknown }).max_model_len;
    const listing = model as unknown as Record<string, unknown>;
    return typeof length === "number" && Number.isSafeInteger(length) && length > 0 ? { id: model.id, contextLength: length, listing } : { id: model.id, listing };
  });
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
    `No model server answers at ${where}. Either ${START_LOCAL_SERVER_HINT} (or name another with --base-url URL), or run a GGUF file already on disk (--provider local --model PATH).`,
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
 * One model a server serves, under every name it lists for it: vLLM lists each
 * `--served-model-name` as an entry of its own, all with the model's path as `root`
 * (a LoRA adapter has its own root, so it is a model of its own).
 */
export interface ServedModel {
  /** Its listed names, in the server's order. */
  names: string[];
  contextLength?: number;
}

/** The distinct models behind a listing, in the order their first name comes: a list cut with "and N more" counts these, not names. */
export function servedModels(models: readonly ListedModel[]): ServedModel[] {
  const byRoot = new Map<string, ServedModel>();
  for (const model of models) {
    const root = model.listing?.root;
    const key = typeof root === "string" && root !== "" ? `root:${root}` : `id:${model.id}`;
    const served = byRoot.get(key);
    if (served) served.names.push(model.id);
    else byRoot.set(key, model.contextLength === undefined ? { names: [model.id] } : { names: [model.id], contextLength: model.contextLength });
  }
  return [...byRoot.values()];
}

/** Models named in a "does not serve" message; a server may list hundreds. */
const MAX_NAMED = 20;

/**
 * A model a person named (chat's `/model NAME`), checked against what the server lists
 * (`known`, or asked now): one it does not list is refused, naming the likely slip or those
 * it does. Gives the listing.
 */
export async function requireListedModel(baseURL: string, apiKey: string | undefined, timeoutMs: number, name: string, known?: readonly ListedModel[]): Promise<readonly ListedModel[]> {
  const listing = known ?? (await listModelInfo(baseURL, apiKey, timeoutMs));
  const names = listing.map((model) => model.id);
  if (!names.includes(name)) {
    // "Qwen3-8B" for "Qwen/Qwen3-8B" is the usual slip; else a near spelling.
    const meant = names.find((model) => model.toLowerCase().endsWith(`/${name.toLowerCase()}`)) ?? didYouMean(name, names);
    const served = servedModels(listing);
    const listed = meant
      ? `did you mean "${meant}"?`
      : served.length > 0
        ? `it lists ${served.slice(0, MAX_NAMED).map((model) => withAliases(model)).join(", ")}${served.length > MAX_NAMED ? ` and ${served.length - MAX_NAMED} more` : ""}`
        : "it lists none";
    throw new LlmError("config", `The model server at ${baseURL} does not serve "${name}"; ${listed}${meant ? "" : "."}`, { url: baseURL });
  }
  return listing;
}

/** Aliases named after a model's first name; a model listed under hundreds of names gets a count. */
const MAX_ALIASES = 3;

/** A served model as one entry of a list: `first (also b, c)`, with `lead` (the name in use) first when given. */
export function withAliases(model: ServedModel, lead = model.names[0]!): string {
  const others = model.names.filter((name) => name !== lead);
  if (others.length === 0) return lead;
  const named = others.slice(0, MAX_ALIASES).join(", ");
  return `${lead} (also ${named}${others.length > MAX_ALIASES ? ` and ${others.length - MAX_ALIASES} more names` : ""})`;
}
