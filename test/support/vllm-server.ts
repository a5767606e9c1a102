/**
 * TEST INFRASTRUCTURE ONLY: a scripted stand-in for a vLLM server (OpenAI-compatible API).
 *
 * It answers `POST /v1/chat/completions` from a script, streaming exactly what vLLM streams
 * (see vLLM's serving_chat.py / protocol.py and the hermes tool parser):
 *   - `data: <json>\n\n` events ending with `data: [DONE]\n\n`; unset fields absent, explicit
 *     Nones as `null` (`logprobs`, `finish_reason`, `stop_reason`);
 *   - a first chunk `delta: {"role":"assistant","content":""}`;
 *   - thinking as `delta.reasoning_content` (or `delta.reasoning`, newer vLLM), apart from `content`;
 *   - each tool call as a first delta `{id: "chatcmpl-tool-<32 hex>", type, index, function: {name}}`
 *     then `{index, function: {arguments: <fragment>}}` deltas cut at arbitrary character offsets;
 *     with `tool_choice: "required"` the later deltas carry `"name": null`;
 *   - a finish chunk with `finish_reason` ("tool_calls" for auto/required, "stop" for a named
 *     tool_choice) and `stop_reason: null`, which by default carries the last arguments fragment;
 *   - with `logprobs: true`, each content chunk's `logprobs: {content: [{token, logprob, bytes, top_logprobs}]}`;
 *   - with `stream_options.include_usage`, a usage chunk with `choices: []` before `[DONE]`;
 *   - errors in vLLM's bodies (`{"object":"error",...}`, or wrapped `{"error":{...}}`), and
 *     mid-stream errors as `data: {"error": {...}}` followed by `[DONE]`.
 * `GET /v1/models` lists the model (with `max_model_len`, as vLLM does). Non-streamed requests get a `chat.completion` object.
 *
 * Usage:
 *   const server = await startVllmServer({ replies: [
 *     { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] },
 *     { text: "Today is 7 January 2026." },
 *   ] });
 *   // point the client at server.url ("http://127.0.0.1:PORT/v1")
 *   server.requests[0].body.tools  // what the client sent
 *   await server.close();
 *
 * Each chat request takes the next reply of the script; a request beyond the script gets a
 * 500 saying so, so a test that makes an unexpected request fails loudly. `toolsEnabled:
 * false` behaves like vLLM started without `--enable-auto-tool-choice --tool-call-parser`:
 * a request with tools and tool_choice "auto" (or none given) is refused with vLLM's 400
 * (without consuming a reply); named and "required" tool choice still work. `strictTools:
 * false` behaves like vLLM before strict mode (0.9): a tool with `function.strict` is refused
 * with pydantic's 400 naming the field (without consuming a reply).
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { listenScripted, type RecordedRequest } from "./scripted-server.js";

export type { RecordedRequest };

export interface ScriptedToolCall {
  name: string;
  /** An object is serialised with JSON.stringify; a string is sent as it is (may be broken JSON). */
  arguments: string | Record<string, unknown>;
  /** Defaults to vLLM's `chatcmpl-tool-<32 hex>`. */
  id?: string;
}

/** One streamed (or non-streamed) answer. */
export interface StreamReply {
  kind?: "reply";
  reasoning?: string;
  /** Which field carries the thinking: vLLM up to 0.10 `reasoning_content`, newer `reasoning`. */
  reasoningField?: "reasoning_content" | "reasoning";
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /**
   * Lengths (in characters) of the successive argument fragments, cycled. Default: a
   * pseudo-random mix of 1 to 7, so keys, numbers and escapes are cut in odd places.
   */
  fragmentSizes?: number[];
  /** Send the last arguments fragment in the finish chunk, as vLLM does. Default true. */
  lastFragmentInFinishChunk?: boolean;
  /** Send the first arguments fragment in the same delta as the name. Default false. */
  firstFragmentWithName?: boolean;
  /** Overrides vLLM's choice ("tool_calls" / "stop"), e.g. "length". */
  /** vLLM's `stop_reason` in the finish chunk: the stop string (or token id) that ended the reply (default null). */
  stopReason?: string | number;
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Wait this long before the response headers. */
  delayMs?: number;
  /** Wait this long between chunks. */
  chunkDelayMs?: number;
  /** After this many chunks, stop writing and keep the connection open (timeouts, aborts). */
  stallAfterChunks?: number;
  /** With `stallAfterChunks`: the rest is sent once this settles (something happens while a stream is under way). */
  resumeOn?: Promise<unknown>;
  /** After this many chunks, close the connection: one dropped mid-answer. */
  dropAfterChunks?: number;
  /** After this many chunks, send `data: {"error": ...}` and `[DONE]` instead of the rest. */
  errorAfterChunks?: { chunks: number; message: string; code?: number };
  /** Write each SSE event in two writes cut at its middle byte, as a proxy or a slow network delivers it. */
  splitEvents?: boolean;
}

/** An HTTP error answer in one of vLLM's two body formats. */
export interface ErrorReply {
  kind: "error";
  status: number;
  message: string;
  /** "legacy" `{"object":"error",...}` (default), "wrapped" `{"error":{...}}`, or a raw body. */
  format?: "legacy" | "wrapped" | { raw: string; contentType?: string };
  headers?: Record<string, string>;
}

/** Accept the request and never answer it. */
export interface HangReply {
  kind: "hang";
}

export type VllmReply = StreamReply | ErrorReply | HangReply;

export interface VllmServerOptions {
  replies?: VllmReply[];
  /** Chooses each chat request's reply from the request instead of the script, so concurrent conversations cannot take each other's replies. */
  respond?: (body: { messages: { role: string }[] }) => VllmReply;
  /** false: like vLLM without --enable-auto-tool-choice (default true). */
  toolsEnabled?: boolean;
  /** Format of the "no tools" 400 (default "legacy", as vLLM up to 0.8). */
  errorFormat?: "legacy" | "wrapped";
  model?: string;
  /** Extra models listed by /v1/models after `model`. */
  otherModels?: string[];
  /** More names for `model`, listed after it with its `root`, as vLLM lists each `--served-model-name`. */
  aliases?: string[];
  /** /v1/models answers only once this settles (a model server still loading its model). */
  modelsReady?: Promise<void>;
  /** The `max_model_len` /v1/models lists for each model (default 32768); null leaves the field out. */
  maxModelLen?: number | null;
  /** false: no /tokenize endpoint (a server other than vLLM); default true. */
  tokenize?: boolean;
  /** false: like vLLM 0.9 and older, whose FunctionDefinition forbids `strict` (default true). */
  strictTools?: boolean;
}

export interface VllmServer {
  /** Base URL including `/v1`. */
  url: string;
  /** Every request received, in order (chat completions and model listings). */
  requests: RecordedRequest[];
  /** Chat completion requests only. */
  readonly chatRequests: RecordedRequest[];
  /** Appends replies to the script. */
  push(...replies: VllmReply[]): void;
  close(): Promise<void>;
}

export const DEFAULT_VLLM_MODEL = "Qwen/Qwen3-8B";

/** vLLM's exact message when started without a tool parser. */
export const VLLM_NO_TOOLS_MESSAGE =
  '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set';

/** vLLM 0.9's 400 for `strict` on a tool (pydantic's extra_forbidden, as quoted in vLLM issue 15526 and llama_index issue 19121). */
export function vllmStrictRefusal(index: number): string {
  return `1 validation error for ChatCompletionRequest\ntools.${index}.function.strict\n  Extra inputs are not permitted [type=extra_forbidden, input_value=True, input_type=bool]\n    For further information visit https://errors.pydantic.dev/2.11/v/extra_forbidden`;
}

export async function startVllmServer(options: VllmServerOptions = {}): Promise<VllmServer> {
  const script = [...(options.replies ?? [])];
  const model = options.model ?? DEFAULT_VLLM_MODEL;
  const toolsEnabled = options.toolsEnabled ?? true;

  async function handle({ method, path, body }: RecordedRequest, res: ServerResponse): Promise<void> {
    if (method === "GET" && path === "/v1/models") {
      await options.modelsReady;
      const created = Math.floor(Date.now() / 1000);
      const names = [model, ...(options.aliases ?? []), ...(options.otherModels ?? [])];
      const data = names.map((id, index) => ({
        id,
        object: "model",
        created,
        owned_by: "vllm",
        root: index <= (options.aliases?.length ?? 0) ? model : id,
        parent: null,
        ...(options.maxModelLen === null ? {} : { max_model_len: options.maxModelLen ?? 32768 }),
        permission: [],
      }));
      return sendJson(res, 200, { object: "list", data });
    }
    // vLLM's tokenizer endpoint (beside /v1): a stand-in count, one "token" per character of the JSON it was given.
    if (method === "POST" && path === "/tokenize" && options.tokenize !== false) {
      return sendJson(res, 200, { count: JSON.stringify({ messages: body?.messages, tools: body?.tools }).length, max_model_len: options.maxModelLen ?? 32768, tokens: [] });
    }
    if (method !== "POST" || path !== "/v1/chat/completions") {
      return sendJson(res, 404, { detail: "Not Found" });
    }

    const toolChoice = body?.tool_choice;
    const hasTools = Array.isArray(body?.tools) && body.tools.length > 0;
    if (!toolsEnabled && hasTools && (toolChoice === undefined || toolChoice === "auto")) {
      return sendError(res, 400, VLLM_NO_TOOLS_MESSAGE, options.errorFormat ?? "legacy");
    }
    const strictAt = hasTools ? (body.tools as Array<{ function?: { strict?: unknown } }>).findIndex((tool) => tool.function?.strict !== undefined) : -1;
    if (options.strictTools === false && strictAt >= 0) {
      return sendError(res, 400, vllmStrictRefusal(strictAt), options.errorFormat ?? "legacy");
    }

    const reply = options.respond ? options.respond(body) : script.shift();
    if (!reply) return sendError(res, 500, "scripted vLLM server: no reply left in the script", "wrapped");
    if (reply.kind === "hang") return; // the socket stays open until close()
    if (reply.kind === "error") {
      return sendError(res, reply.status, reply.message, reply.format ?? "legacy", reply.headers);
    }
    if (reply.delayMs) await sleep(reply.delayMs);
    const mode: ToolMode = typeof toolChoice === "object" && toolChoice ? "named" : toolChoice === "required" ? "required" : "auto";
    const chunks = buildChunks(reply, body?.model ?? model, mode, body?.stream_options?.include_usage === true, body?.logprobs === true);
    if (body?.stream !== true) return sendJson(res, 200, assemble(chunks));
    await streamChunks(res, chunks, reply);
  }

  const { url, requests, close } = await listenScripted(handle, {
    onFailure: (res, err) => sendError(res, 500, `test server failure: ${String(err)}`, "wrapped"),
  });
  return {
    url: `${url}/v1`,
    requests,
    get chatRequests() {
      return requests.filter((r) => r.path === "/v1/chat/completions");
    },
    push: (...replies) => void script.push(...replies),
    close,
  };
}

type ToolMode = "auto" | "required" | "named";

type Chunk = Record<string, unknown>;

/** A planned chunk, or the instruction to emit the mid-stream error at that point. */
type Planned = { chunk: Chunk } | { error: { message: string; code?: number } };

function buildChunks(reply: StreamReply, model: string, mode: ToolMode, includeUsage: boolean, logprobs = false): Chunk[] {
  const id = `chatcmpl-${randomBytes(16).toString("hex")}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Chunk = {}): Chunk => ({ id, object: "chat.completion.chunk", created, model, choices, ...extra });
  const choice = (delta: Chunk, finish: string | null = null, extra: Chunk = {}) => ({ index: 0, delta, logprobs: null, finish_reason: finish, ...extra });

  const chunks: Chunk[] = [chunk([choice({ role: "assistant", content: "" })])];
  const reasoningField = reply.reasoningField ?? "reasoning_content";
  for (const piece of tokens(reply.reasoning ?? "")) chunks.push(chunk([choice({ [reasoningField]: piece })]));
  // With `logprobs`, vLLM gives each content chunk's tokens at the choice (a fixed -0.5 here).
  const logprobsOf = (piece: string): Chunk => (logprobs ? { logprobs: { content: [{ token: piece, logprob: -0.5, bytes: [...Buffer.from(piece)], top_logprobs: [] }] } } : {});
  for (const piece of tokens(reply.text ?? "")) chunks.push(chunk([choice({ content: piece }, null, logprobsOf(piece))]));

  const calls = reply.toolCalls ?? [];
  const sizes = reply.fragmentSizes ?? [3, 1, 7, 2, 5, 1, 4, 6, 2];
  let sizeAt = 0;
  let held: Chunk | undefined; // the last fragment, kept back for the finish chunk
  calls.forEach((call, index) => {
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    const fragments = split(args, () => sizes[sizeAt++ % sizes.length] ?? 1);
    const first: Chunk = {
      id: call.id ?? `chatcmpl-tool-${randomBytes(16).toString("hex")}`,
      type: "function",
      index,
      function: { name: call.name, ...(reply.firstFragmentWithName && fragments.length > 0 ? { arguments: fragments.shift() } : {}) },
    };
    chunks.push(chunk([choice({ tool_calls: [first] })]));
    for (const fragment of fragments) {
      const fn = mode === "required" ? { name: null, arguments: fragment } : { arguments: fragment };
      chunks.push(chunk([choice({ tool_calls: [{ index, function: fn }] })]));
    }
  });
  const holdLast = calls.length > 0 && (reply.lastFragmentInFinishChunk ?? true);
  if (holdLast) {
    const last = chunks[chunks.length - 1] as { choices: Array<{ delta: Chunk }> };
    const delta = last.choices[0]?.delta;
    if (delta && Array.isArray(delta.tool_calls) && !("id" in (delta.tool_calls[0] as Chunk))) {
      held = delta;
      chunks.pop();
    }
  }
  const finish = reply.finishReason ?? (calls.length > 0 ? (mode === "named" ? "stop" : "tool_calls") : "stop");
  chunks.push(chunk([choice(held ?? {}, finish, { stop_reason: reply.stopReason ?? null })]));

  if (includeUsage) {
    const usage = reply.usage ?? { prompt_tokens: 42, completion_tokens: chunks.length };
    chunks.push(chunk([], { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }));
  }
  return chunks;
}

async function streamChunks(res: ServerResponse, chunks: Chunk[], reply: StreamReply): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  const plan: Planned[] = chunks.map((chunk) => ({ chunk }));
  if (reply.errorAfterChunks) {
    const { chunks: at, message, code } = reply.errorAfterChunks;
    plan.splice(at, plan.length - at, { error: { message, ...(code !== undefined ? { code } : {}) } });
  }
  for (const [sent, step] of plan.entries()) {
    if (reply.stallAfterChunks !== undefined && sent === reply.stallAfterChunks) {
      if (!reply.resumeOn) return; // hold the socket open
      await reply.resumeOn;
    }
    // The socket closed once what was written has gone out, before the body's last chunk: a server that died mid-answer.
    if (reply.dropAfterChunks !== undefined && sent === reply.dropAfterChunks) return void res.socket?.end();
    if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    if (res.destroyed) return;
    if ("error" in step) {
      const code = step.error.code ?? 500;
      res.write(`data: ${JSON.stringify({ error: { message: step.error.message, type: errorType(code), param: null, code } })}\n\n`);
      break;
    }
    const event = Buffer.from(`data: ${JSON.stringify(step.chunk)}\n\n`);
    if (reply.splitEvents) {
      // Cut at a byte offset: a multi-byte UTF-8 character may be split, as TCP may split it.
      const cut = Math.floor(event.length / 2);
      res.write(event.subarray(0, cut));
      await sleep(1);
      res.write(event.subarray(cut));
    } else {
      res.write(event);
    }
  }
  res.end("data: [DONE]\n\n");
}

/** The non-streamed `chat.completion` equivalent of a chunk list. */
function assemble(chunks: Chunk[]): Chunk {
  let content = "";
  let reasoning = "";
  let finish: unknown = null;
  let stopReason: unknown = null;
  let usage: unknown;
  const calls: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> = [];
  for (const c of chunks as Array<{ choices: Array<{ delta: any; finish_reason: unknown }>; usage?: unknown }>) {
    if (c.usage) usage = c.usage;
    const ch = c.choices[0];
    if (!ch) continue;
    content += ch.delta.content ?? "";
    reasoning += ch.delta.reasoning_content ?? ch.delta.reasoning ?? "";
    for (const tc of ch.delta.tool_calls ?? []) {
      const call = (calls[tc.index] ??= { id: tc.id, type: "function", function: { name: "", arguments: "" } });
      if (tc.function?.name) call.function.name = tc.function.name;
      call.function.arguments += tc.function?.arguments ?? "";
    }
    if (ch.finish_reason) {
      finish = ch.finish_reason;
      stopReason = (ch as { stop_reason?: unknown }).stop_reason ?? null;
    }
  }
  const first = chunks[0] as Chunk;
  return {
    id: first.id,
    object: "chat.completion",
    created: first.created,
    model: first.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: calls.length > 0 && content === "" ? null : content,
          reasoning_content: reasoning || null,
          tool_calls: calls,
        },
        logprobs: null,
        finish_reason: finish,
        stop_reason: stopReason,
      },
    ],
    usage: usage ?? { prompt_tokens: 42, completion_tokens: 1, total_tokens: 43 },
  };
}

/** Text cut into small token-like pieces, the way a detokenizer emits it. */
function tokens(text: string): string[] {
  return text.match(/\s*\S{1,4}|\s+/gu) ?? [];
}

/** A string cut at code point boundaries into pieces of the given lengths. */
function split(text: string, nextSize: () => number): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; ) {
    const size = Math.max(1, nextSize());
    out.push(points.slice(i, i + size).join(""));
    i += size;
  }
  return out;
}

function errorType(status: number): string {
  if (status === 400) return "BadRequestError";
  if (status === 404) return "NotFoundError";
  if (status === 429) return "RateLimitError";
  return "InternalServerError";
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  format: ErrorReply["format"],
  headers: Record<string, string> = {},
): void {
  if (typeof format === "object") {
    res.writeHead(status, { "content-type": format.contentType ?? "text/plain", ...headers });
    res.end(format.raw);
    return;
  }
  const info = { message, type: errorType(status), param: null, code: status };
  sendJson(res, status, format === "wrapped" ? { error: info } : { object: "error", ...info }, headers);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
