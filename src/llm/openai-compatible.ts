import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { registerSecret } from "../config/redact.js";
import { endpointUrl, queryApart } from "./endpoint-url.js";
import { eventTooLarge, MAX_EVENT_BYTES, type AnswerBudget } from "./answer-limit.js";
import type { BodyBytes } from "./body-bytes.js";
import { readBoundedBody } from "./bounded-body.js";
import { httpFetch, httpOpen, type OpenedAnswer, type OpenInit } from "./http-fetch.js";
import { jsonBody } from "./json-body.js";
import { isApiContentType, notOpenAICompatible, serverMessageOf, START_LOCAL_SERVER_HINT, streamError, truncatedError, type LlmError } from "./errors.js";
import { openAIGenerationFields, thinkingFields, toOpenAIMessages, toOpenAITools, toOpenAIToolChoice } from "./openai-messages.js";
import { RequestControl } from "./request-control.js";
import { readServerSentEvents } from "./sse-events.js";
import { fromSdkError, type ErrorContext } from "./sdk-errors.js";
import type { OpenAISchemaOptions } from "./schema/openai.js";
import { StreamingModel, type ModelOptions } from "./streaming-model.js";
import { InProcessStrictMemory, isStrictRefusal, type StrictToolsMemory } from "./strict-tools.js";
import { ToolCallAssembler } from "./tool-call-assembler.js";
import type { ChatRequest, FinishReason, StreamEvent, Usage } from "./types.js";

/**
 * The Chat Completions adapter, for every server that speaks the OpenAI API: vLLM first
 * (read against its streaming as documented in vLLM's source), Ollama, OpenAI, LM Studio,
 * llama.cpp's server.
 */
export interface OpenAICompatibleOptions extends ModelOptions {
  /** Up to and including `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
  baseURL: string;
  /** vLLM and Ollama need none unless started with one; a placeholder is sent then. */
  apiKey?: string;
  /** The name this model reports as its provider (vllm, ollama, openai, ...). */
  provider?: string;
  schema?: OpenAISchemaOptions;
  /** Added to the one-line "cannot reach" error: how to start the server. */
  startHint?: string;
  /**
   * Send tools with `strict: true` unless a request says otherwise (vLLM then constrains the
   * model's calls to the schemas). Default false.
   */
  strictTools?: boolean;
  /** Where a server's refusal of `strict` is remembered (default: this process). */
  strictMemory?: StrictToolsMemory;
}

/** Refusals remembered by models given no memory of their own. */
const processStrictMemory = new InProcessStrictMemory();

/** A token count is a quick question; a server slow to answer it is not waited for. */
const TOKENIZE_TIMEOUT_MS = 10_000;
/** A token count's answer is `{"count": N}` and a few fields more; a longer one is not read further. */
const MAX_TOKENIZE_BODY_BYTES = 64 * 1024;

export class OpenAICompatibleModel extends StreamingModel<OpenAICompatibleOptions> {
  readonly provider: string;
  private readonly strictMemory: StrictToolsMemory;
  /**
   * The base URL without credentials and the headers every request carries (the key, the
   * configured headers, JSON both ways), made once: the chat and the token count go the same way.
   */
  private readonly url: string;
  private readonly headers: Record<string, string>;

  constructor(options: OpenAICompatibleOptions) {
    super(options, options.baseURL);
    this.provider = options.provider ?? "openai-compatible";
    this.strictMemory = options.strictMemory ?? processStrictMemory;
    const { url, headers } = clientSettings(options.baseURL, options.apiKey, options.headers);
    this.url = url.replace(/\/+$/, "");
    this.headers = { accept: "application/json", ...headers, "content-type": "application/json" };
  }

  /** A JSON POST to `url` with the headers every request carries; errors are lifted as the SDK would read them. */
  private post(url: string, payload: unknown, signal: AbortSignal): Promise<Response> {
    return liftErrorBodies(url, this.postInit(payload, signal));
  }

  private postInit(payload: unknown, signal: AbortSignal): OpenInit {
    const { body, length } = jsonBody(payload);
    return {
      method: "POST",
      body,
      headers: { ...this.headers, "content-length": String(length) },
      signal,
      // A large body is a stream read as it is sent: made again for a resend on a stale connection.
      ...(typeof body === "string" ? {} : { bodyAgain: () => jsonBody(payload).body as ReadableStream<Uint8Array> }),
    };
  }

  get strictTools(): boolean | "refused" {
    return this.strictMemory.refuses(this.baseURL, this.modelId) ? "refused" : this.options.strictTools === true;
  }

  /** The request body as sent, for tests and `--verbose` traces. */
  requestBody(request: ChatRequest, strict = this.sendsStrict(request)): OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming {
    const { options } = this;
    const tools = request.tools ?? [];
    const wire = tools.length > 0 ? this.wireTools(tools, (list) => toOpenAITools(list, options.schema)) : [];
    const temperature = request.temperature ?? options.temperature;
    const maxTokens = request.maxTokens ?? options.maxTokens;
    return {
      ...options.extraBody,
      ...request.providerOptions,
      model: options.model,
      messages: toOpenAIMessages(request.messages, this.provider),
      ...(tools.length > 0
        ? {
            tools: strict ? wire.map((tool) => ({ ...tool, function: { ...tool.function, strict: true } })) : wire,
            tool_choice: toOpenAIToolChoice(request.toolChoice ?? "auto"),
            ...(request.parallelToolCalls !== undefined ? { parallel_tool_calls: request.parallelToolCalls } : {}),
          }
        : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      // OpenAI's reasoning models take only max_completion_tokens; every other server reads max_tokens.
      ...(maxTokens !== undefined ? (this.provider === "openai" ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens }) : {}),
      ...openAIGenerationFields(request),
      // OpenAI refuses fields it does not know; its models think as reasoning_effort says.
      ...(request.thinking && this.provider !== "openai" ? thinkingFields(request.thinking, { ...options.extraBody, ...request.providerOptions }.chat_template_kwargs) : {}),
      stream: true,
      stream_options: { include_usage: true },
    };
  }

  /**
   * vLLM's `POST /tokenize` (beside `/v1`, not under it) applies the model's chat template to
   * the messages and tools, so the count is what the prompt will take. Other servers have no
   * such endpoint: undefined.
   */
  async countTokens(request: ChatRequest): Promise<number | undefined> {
    const body = this.requestBody(request);
    const url = endpointUrl(this.url.replace(/\/v1(?=$|\?)/, ""), "/tokenize");
    const timeout = AbortSignal.timeout(TOKENIZE_TIMEOUT_MS);
    try {
      const response = await this.post(
        url,
        { model: body.model, messages: body.messages, ...(body.tools ? { tools: body.tools } : {}), add_generation_prompt: true },
        request.signal ? AbortSignal.any([request.signal, timeout]) : timeout,
      );
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        return undefined;
      }
      const { text, truncated } = await readBoundedBody(response.body, MAX_TOKENIZE_BODY_BYTES);
      if (truncated) return undefined;
      const count = (JSON.parse(text) as { count?: unknown } | null)?.count;
      return typeof count === "number" && Number.isInteger(count) && count >= 0 ? count : undefined;
    } catch {
      return undefined;
    }
  }

  private sendsStrict(request: ChatRequest): boolean {
    const strict = this.strictTools;
    return strict !== "refused" && (request.strictTools ?? strict) && (request.tools?.length ?? 0) > 0;
  }

  /**
   * The request made; a server that refuses `strict` is asked once more without it, and that is
   * remembered. Sent without the SDK's request machinery, which cost as much CPU as the rest of a
   * gateway's turn before the request left (its timeout is RequestControl's here, and it retries
   * nothing); what fails is thrown as the SDK's own errors, which toLlmError reads.
   */
  private async open(request: ChatRequest, signal: AbortSignal): Promise<OpenedAnswer> {
    const strict = this.sendsStrict(request);
    // The SDK would copy the whole conversation into one JSON string; a large one is written as it is sent.
    const send = async (withStrict: boolean) => {
      // Made before the try: a part the model cannot take is refused as such, not as a failed connection.
      const init = this.postInit(this.requestBody(request, withStrict), signal);
      let answer: OpenedAnswer;
      try {
        answer = await httpOpen(endpointUrl(this.url, "/chat/completions"), init);
      } catch (error) {
        throw new APIConnectionError({ cause: error instanceof Error ? error : new Error(String(error)) });
      }
      if (answer.status < 200 || answer.status > 299) throw await statusError(await liftedErrorBody(answer.response()));
      return answer;
    };
    try {
      return await send(strict);
    } catch (err) {
      if (!strict || !isStrictRefusal(err)) throw err;
      this.strictMemory.remember(this.baseURL, this.modelId);
      return await send(false);
    }
  }

  protected async *attempt(request: ChatRequest, budget: AnswerBudget): AsyncGenerator<StreamEvent> {
    const url = this.baseURL;
    const control = new RequestControl(url, this.timeoutMs, request.signal);
    try {
      // The SDK makes the request and maps HTTP errors; the stream is read here, since the SDK's
      // own reader takes quadratic time on one large event.
      let body: BodyBytes;
      try {
        const answer = await this.open(request, control.signal);
        const { contentType } = answer;
        // A web page answered with 200 would read as an empty stream: say what it is instead.
        if (!isApiContentType(contentType)) throw notOpenAICompatible(url, contentType ?? "");
        const bytes = answer.bytes();
        if (!bytes) throw new Error("the answer has no body");
        body = bytes;
        // A server that ignores `stream: true` answers one chat.completion as JSON: read it as one chunk.
        if (contentType && /json/i.test(contentType) && !/event-stream/i.test(contentType)) {
          const { text, truncated } = await readBoundedBody(body, MAX_EVENT_BYTES);
          if (truncated) throw eventTooLarge(url, MAX_EVENT_BYTES);
          const reader = new ChunkReader(budget);
          yield* reader.read(completionAsChunk(parseChunk(text, url) as unknown as OpenAI.Chat.Completions.ChatCompletion));
          yield* reader.end(url);
          return;
        }
      } catch (err) {
        throw toLlmError(err, url, { control, timeoutMs: this.timeoutMs, startHint: this.options.startHint ?? START_LOCAL_SERVER_HINT });
      }
      const reader = new ChunkReader(budget);
      try {
        const batches = readServerSentEvents(body, { maxEventBytes: MAX_EVENT_BYTES, tooLarge: (bytes) => eventTooLarge(url, bytes) });
        read: for await (const events of batches) {
          control.touch();
          for (const event of events) {
            // Events already read must not reach a caller who cancelled.
            if (control.signal.aborted || event.data.startsWith("[DONE]")) break read;
            // Iterated here, not delegated to with yield*: an async generator awaits each value a sync one hands it.
            for (const streamEvent of reader.read(parseChunk(event.data, url))) yield streamEvent;
          }
        }
      } catch (err) {
        throw toLlmError(err, url, { control, timeoutMs: this.timeoutMs });
      }
      // A cancelled or timed-out stream may end quietly.
      const stopped = control.stopReason();
      if (stopped) throw stopped;
      yield* reader.end(url);
    } finally {
      control.dispose();
    }
  }
}

/** One event's data as a chunk; a server's error sent inside the stream becomes its one-line error. */
function parseChunk(data: string, url: string): OpenAI.Chat.Completions.ChatCompletionChunk {
  const parsed = JSON.parse(data) as OpenAI.Chat.Completions.ChatCompletionChunk & { error?: unknown };
  if (parsed && typeof parsed === "object" && parsed.error) throw streamError(url, serverMessageOf(parsed.error), parsed.error);
  return parsed;
}

/** A whole (non-streamed) completion as the one chunk that says it all: its message is the delta. */
function completionAsChunk(completion: OpenAI.Chat.Completions.ChatCompletion): OpenAI.Chat.Completions.ChatCompletionChunk {
  const choice = completion.choices?.[0];
  return {
    id: completion.id,
    object: "chat.completion.chunk",
    created: completion.created,
    model: completion.model,
    choices: choice
      ? [{ index: 0, delta: choice.message as OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta, finish_reason: choice.finish_reason ?? "stop" }]
      : [],
    ...(completion.usage ? { usage: completion.usage } : {}),
  };
}

/** What vLLM (and the others) put in a delta beyond the OpenAI types. */
interface LooseDelta {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: Array<{
    index?: number;
    id?: string | null;
    function?: { name?: string | null; arguments?: string | null } | null;
  }> | null;
}

/** Turns Chat Completions chunks into neutral stream events. */
class ChunkReader {
  private readonly calls: ToolCallAssembler;
  private usage: Usage | undefined;
  private finishReason: string | undefined;
  /** vLLM's `stop_reason`: the stop string that ended the reply (or a stop token's id, which is no sequence). */
  private stopSequence: string | undefined;
  private sawToolCalls = false;

  constructor(budget: AnswerBudget) {
    this.calls = new ToolCallAssembler(budget);
  }

  *read(chunk: OpenAI.Chat.Completions.ChatCompletionChunk): Generator<StreamEvent> {
    if (chunk.usage) {
      const { prompt_tokens: input = 0, completion_tokens: output = 0 } = chunk.usage;
      this.usage = { inputTokens: input, outputTokens: output, totalTokens: chunk.usage.total_tokens ?? input + output };
    }
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = (choice.delta ?? {}) as LooseDelta;
    // Servers in transition send the thinking under both names; one of them is enough.
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning !== "") yield { type: "reasoning-delta", text: reasoning };
    if (typeof delta.content === "string" && delta.content !== "") yield { type: "text-delta", text: delta.content };
    const logprobs = choice.logprobs?.content;
    if (logprobs && logprobs.length > 0) yield { type: "logprobs", content: logprobs };
    for (const fragment of delta.tool_calls ?? []) {
      this.sawToolCalls = true;
      this.calls.add(this.slotOf(fragment), {
        id: fragment.id,
        name: fragment.function?.name,
        arguments: fragment.function?.arguments,
      });
    }
    if (choice.finish_reason) {
      this.finishReason = choice.finish_reason;
      const stopReason = (choice as { stop_reason?: unknown }).stop_reason;
      if (typeof stopReason === "string") this.stopSequence = stopReason;
      // The finish chunk may carry the last argument fragment, read above; now the calls are whole.
      for (const call of this.calls.drain()) yield { type: "tool-call", call };
    }
  }

  *end(url: string): Generator<StreamEvent> {
    if (this.finishReason === undefined) {
      throw truncatedError(url);
    }
    if (this.usage) yield { type: "usage", usage: this.usage };
    const reason = this.mapFinish(this.finishReason);
    yield reason === "stop" && this.stopSequence !== undefined ? { type: "finish", reason, stopSequence: this.stopSequence } : { type: "finish", reason };
  }

  /** Servers that send whole calls without an index (some older ones) get one slot per call id. */
  private slotOf(fragment: { index?: number; id?: string | null }): number {
    if (typeof fragment.index === "number") return fragment.index;
    if (fragment.id) return this.calls.indexOf(fragment.id) ?? this.calls.size;
    return Math.max(0, this.calls.size - 1);
  }

  private mapFinish(reason: string): FinishReason {
    switch (reason) {
      case "tool_calls":
      case "function_call":
      case "stop": // a named tool_choice ends with "stop" although the reply is a call
        return this.sawToolCalls ? "tool-calls" : "stop";
      case "length":
        return "length";
      case "content_filter":
        return "content-filter";
      default:
        return "other";
    }
  }
}

/** An answer that is not 2xx as the error the SDK throws for it (its body read as the SDK reads it). */
async function statusError(response: Response): Promise<APIError> {
  const text = await response.text().catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
  let json: object | undefined;
  try {
    json = JSON.parse(text) as object;
  } catch {
    json = undefined;
  }
  return APIError.generate(response.status, json, json ? undefined : text, response.headers);
}

/**
 * The base URL without credentials (fetch refuses a URL with them; they are sent as Basic auth,
 * as curl does) and the headers every request carries: the key as a bearer token (local servers
 * started without --api-key accept anything; the SDK insists on some key), the configured
 * headers over it, and Basic auth over both.
 */
const SECRET_QUERY_NAME = /key|token|secret|sig|pass|auth|cred|session/i;

function clientSettings(baseURL: string, apiKey: string | undefined, headers: Record<string, string> | undefined): { url: string; headers: Record<string, string> } {
  const { url, basic } = credentialsApart(baseURL);
  // A query's credential (a gateway's `?key=…`) is as secret as the key: never printed. Only those: a
  // registered value is masked everywhere, tool results too, and `api-version=2024-06-01` is a date.
  for (const [name, value] of new URL(url).searchParams) if (SECRET_QUERY_NAME.test(name)) registerSecret(value);
  const merged = new Headers({ authorization: `Bearer ${apiKey || "not-needed"}` });
  for (const [name, value] of Object.entries(headers ?? {})) merged.set(name, value);
  if (basic) merged.set("authorization", basic);
  const flat: Record<string, string> = {};
  merged.forEach((value, name) => (flat[name] = value));
  return { url, headers: flat };
}

export function createOpenAIClient(baseURL: string, apiKey: string | undefined, timeoutMs: number, headers?: Record<string, string>): OpenAI {
  const { url: withQuery, headers: defaultHeaders } = clientSettings(baseURL, apiKey, headers);
  // The SDK appends paths to its base URL as text: the query goes in apart, added to each request.
  const { url, query } = queryApart(withQuery);
  return new OpenAI({
    baseURL: url,
    ...(query ? { defaultQuery: query } : {}),
    apiKey: apiKey || "not-needed",
    // Given explicitly so the SDK reads nothing from process.env.
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    timeout: timeoutMs,
    logLevel: "off",
    defaultHeaders,
    fetch: liftErrorBodies,
  });
}

/** `http://user:pass@host/v1` as the URL without them and a Basic Authorization header. */
function credentialsApart(baseURL: string): { url: string; basic?: string } {
  const parsed = new URL(baseURL);
  if (!parsed.username && !parsed.password) return { url: baseURL };
  const pair = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = "";
  parsed.password = "";
  return { url: parsed.href.replace(/\/$/, ""), basic: `Basic ${Buffer.from(pair).toString("base64")}` };
}

/**
 * The SDK reads an error body's `error` field only. vLLM before 0.9 answers
 * `{"object":"error","message":...}` and some servers answer plain text; both are lifted
 * into `{"error": ...}` so the server's words reach the user.
 */
async function liftErrorBodies(input: string | URL | Request, init?: OpenInit): Promise<Response> {
  return liftedErrorBody(await httpFetch(input, init));
}

/** The answer, an error's body lifted (see liftErrorBodies). */
async function liftedErrorBody(response: Response): Promise<Response> {
  if (response.ok) return response;
  const { text } = await readBoundedBody(response.body, MAX_ERROR_BODY_BYTES);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  // A web page stays one, for the caller to name it as such (its title, not its markup).
  if (!isApiContentType(response.headers.get("content-type")) && !/text\/plain/i.test(response.headers.get("content-type") ?? "")) {
    return new Response(text, { status: response.status, statusText: response.statusText, headers });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const lifted =
    body && typeof body === "object" && "error" in body ? body : { error: { message: serverMessageOf(body) ?? messageOfCutJson(text) ?? text.trim() } };
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(lifted), { status: response.status, statusText: response.statusText, headers });
}

/** The start of the first "message" string of a JSON body cut at the read limit, so that its words are shown, not its braces. */
function messageOfCutJson(text: string): string | undefined {
  const found = /^\s*\{[^]{0,200}?"(?:message|detail)"\s*:\s*"((?:[^"\\]|\\.){0,2000})/.exec(text)?.[1];
  if (found === undefined) return undefined;
  try {
    return JSON.parse(`"${found.replace(/\\$/, "")}"`) as string;
  } catch {
    return found;
  }
}

/** The most of an error body that is read: enough for any message, and a server cannot make us hold more. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

const OPENAI_ERRORS = { APIError, APIConnectionError, APIConnectionTimeoutError };

export function toLlmError(err: unknown, url: string, context: ErrorContext): LlmError {
  return fromSdkError(err, url, OPENAI_ERRORS, context);
}
