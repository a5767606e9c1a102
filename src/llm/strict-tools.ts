import { APIError } from "openai";
import { redactUrl } from "../config/redact.js";
import type { ChatModel, ChatRequest, StreamEvent } from "./types.js";

/**
 * Which servers and models refuse `strict` on tool definitions. vLLM before strict mode
 * (0.9 and older) answers 400 "tools.0.function.strict: Extra inputs are not permitted";
 * other servers may refuse it in their own words. Asked once per server and model, then
 * remembered (in this process by default; the CLI keeps it in the state directory).
 */
export interface StrictToolsMemory {
  refuses(server: string, model: string): boolean;
  remember(server: string, model: string): void;
}

/** Remembers refusals for the life of this process. */
export class InProcessStrictMemory implements StrictToolsMemory {
  private readonly refused = new Set<string>();

  refuses(server: string, model: string): boolean {
    return this.refused.has(strictKey(server, model));
  }

  remember(server: string, model: string): void {
    this.refused.add(strictKey(server, model));
  }
}

/** One server and model as a key: the URL without credentials, so none is stored with it. */
export function strictKey(server: string, model: string): string {
  return `${redactUrl(server)} ${model}`;
}

/**
 * A server's 400 (or 422) that names `strict`: the request is fine without it. Anything
 * else (a parser missing, a context overflow) is not this and goes up as it is.
 */
export function isStrictRefusal(err: unknown): boolean {
  return err instanceof APIError && (err.status === 400 || err.status === 422) && /\bstrict\b/i.test(err.message);
}

/**
 * The model with every request asking for strict tool calls (or asking for none): how a
 * session holds to the mode the probe found best.
 */
export function withStrictTools(model: ChatModel, strict: boolean): ChatModel {
  return {
    provider: model.provider,
    modelId: model.modelId,
    ...(model.baseURL !== undefined ? { baseURL: model.baseURL } : {}),
    get strictTools() {
      return model.strictTools;
    },
    stream: (request: ChatRequest): AsyncIterable<StreamEvent> => model.stream({ ...request, strictTools: strict }),
    ...(model.countTokens ? { countTokens: (request: ChatRequest) => model.countTokens!({ ...request, strictTools: strict }) } : {}),
  };
}
