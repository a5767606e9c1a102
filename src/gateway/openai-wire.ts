import { z } from "zod";
import type { ContentPart, GenerationSettings, Message, ResponseFormat, TokenLogprob, ToolCall, ToolChoice, ToolDefinition, Usage } from "../llm/types.js";
import { isSealed } from "../llm/reply-block.js";
import { listOf, partOf, textOrListOf, WIRE_LIMITS } from "./wire-limits.js";
import { CallIdSchema, signedCallId, unsignedCallId } from "./signed-call-id.js";
import { ClientThinkingBlockSchema, MAX_THINKING_BLOCKS, toReplyBlock, type ThinkingBlock } from "./thinking-blocks.js";
import { randomHex } from "./random-hex.js";

/**
 * The OpenAI chat-completions wire format as the gateway reads and writes it: requests are
 * checked with these schemas (what is not used is let through, as OpenAI's own server
 * does), and every answer is built here, so ids, `object` fields and chunk shapes are made
 * in one place.
 */

export const MAX_CHOICES = 16;
const MAX_STOP_SEQUENCES = 16;

const TextPartSchema = z.looseObject({ type: z.literal("text"), text: z.string() });
const ImagePartSchema = z.looseObject({ type: z.literal("image_url"), image_url: z.looseObject({ url: z.string() }) });
/** An `input_audio` part, as chat completions and Responses both send it. */
export const AudioPartSchema = z.looseObject({ type: z.literal("input_audio"), input_audio: z.looseObject({ data: z.string(), format: z.enum(["wav", "mp3"]) }) });
/** A `file` part: chat completions' form of the Responses API's `input_file`. */
const FilePartSchema = z.looseObject({
  type: z.literal("file"),
  file: z.looseObject({ file_data: z.string().nullish(), file_id: z.string().nullish(), filename: z.string().nullish() }),
});
const PartSchema = partOf(TextPartSchema, ImagePartSchema, AudioPartSchema, FilePartSchema);
const ContentSchema = textOrListOf(PartSchema, WIRE_LIMITS.parts, "content parts");

/**
 * Where a call carries the provider's signature of the thinking behind it (Gemini's thought
 * signature), as Google's OpenAI-compatible API does: `extra_content.google.thought_signature`.
 * Gemini refuses a conversation whose calls of the current turn lost theirs.
 */
export const ExtraContentSchema = z.looseObject({ google: z.looseObject({ thought_signature: z.string().nullish() }).nullish() }).nullish();

export function signatureField(call: ToolCall): { extra_content?: { google: { thought_signature: string } } } {
  return call.signature ? { extra_content: { google: { thought_signature: call.signature } } } : {};
}

/**
 * A call a client sent back, with the provider's own id and its signature: from
 * `extra_content`, or from the id, for clients that drop fields they do not know but keep the
 * id (LangChain's ChatOpenAI, the AI SDK's openai() provider; see signed-call-id.ts).
 */
export function withSignature(call: ToolCall, extra: z.infer<typeof ExtraContentSchema>): ToolCall {
  const carried = unsignedCallId(call.id);
  const signature = extra?.google?.thought_signature || carried.signature;
  return { ...call, id: carried.id, ...(signature ? { signature } : {}) };
}

const WireToolCallSchema = z.looseObject({
  id: CallIdSchema,
  type: z.literal("function").optional(),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
  extra_content: ExtraContentSchema,
});

const MessageSchema = z.discriminatedUnion("role", [
  z.looseObject({ role: z.enum(["system", "developer"]), content: ContentSchema }),
  z.looseObject({ role: z.literal("user"), content: ContentSchema }),
  z.looseObject({
    role: z.literal("assistant"),
    content: ContentSchema.nullish(),
    tool_calls: listOf(WireToolCallSchema, WIRE_LIMITS.toolCalls, "tool calls").nullish(),
    /** Legacy function calling: the one call of the reply, with no id. */
    function_call: z.looseObject({ name: z.string().min(1), arguments: z.string() }).nullish(),
    reasoning_content: z.string().nullish(),
    /** Signed and redacted thinking as the gateway handed it out (see thinking-blocks.ts), to go back to the provider. */
    thinking_blocks: z.array(ClientThinkingBlockSchema).max(MAX_THINKING_BLOCKS, `at most ${MAX_THINKING_BLOCKS} thinking blocks a message`).nullish(),
  }),
  z.looseObject({ role: z.literal("tool"), tool_call_id: CallIdSchema, content: ContentSchema }),
  /** Legacy function calling: the result of the assistant's last `function_call` of that name. */
  z.looseObject({ role: z.literal("function"), name: z.string().min(1), content: ContentSchema.nullable() }),
]);

const FunctionSchema = z.looseObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "tool names are 1 to 64 letters, digits, _ or -"),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

const ClientToolSchema = z.looseObject({ type: z.literal("function"), function: FunctionSchema });

/**
 * The sampling fields chat completions names. The Responses API names some of them too, and
 * takes the rest as vLLM's own Responses endpoint does, so they are checked the same there.
 */
export const SAMPLING_FIELDS = {
  top_p: z.number().min(0).max(1).nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(MAX_STOP_SEQUENCES, `at most ${MAX_STOP_SEQUENCES} stop sequences`)]).nullish(),
  seed: z.number().int().nullish(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  logit_bias: z.record(z.string(), z.number().min(-100).max(100)).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  reasoning_effort: z.string().nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  user: z.string().nullish(),
};
const SamplingSchema = z.looseObject(SAMPLING_FIELDS);
export type SamplingRequest = z.infer<typeof SamplingSchema>;

export const ChatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: listOf(MessageSchema, WIRE_LIMITS.messages, "messages").min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  tools: listOf(ClientToolSchema, WIRE_LIMITS.tools, "tools").nullish(),
  tool_choice: z
    .union([z.enum(["auto", "required", "none"]), z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) })])
    .nullish(),
  /** Legacy function calling, read as tools and tool_choice (the answer comes back in its shape). */
  functions: listOf(FunctionSchema, WIRE_LIMITS.tools, "functions").nullish(),
  function_call: z.union([z.enum(["auto", "none"]), z.looseObject({ name: z.string() })]).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  /** Each choice is a tool loop of its own. */
  n: z.number().int().min(1).max(MAX_CHOICES, `at most ${MAX_CHOICES} choices per request`).nullish(),
  ...SAMPLING_FIELDS,
  response_format: z
    .discriminatedUnion("type", [
      z.looseObject({ type: z.literal("text") }),
      z.looseObject({ type: z.literal("json_object") }),
      z.looseObject({
        type: z.literal("json_schema"),
        json_schema: z.looseObject({
          name: z.string().optional(),
          description: z.string().optional(),
          schema: z.record(z.string(), z.unknown()).optional(),
          strict: z.boolean().nullish(),
        }),
      }),
    ])
    .nullish(),
  /** Gateway extension: `{"tool_activity": true}` streams tool calls as reasoning lines. */
  toolbridge: z.looseObject({ tool_activity: z.boolean().optional() }).nullish(),
});

export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

/** The fields the gateway reads itself; every other field a client sets goes to the upstream as it is. */
const OWN_FIELDS = new Set(Object.keys(ChatCompletionRequestSchema.shape));

/**
 * Whether the request uses legacy function calling (`functions`): a call of the client's then
 * comes back as `function_call`, as OpenAI's API answered such requests.
 */
export function usesLegacyFunctions(request: ChatCompletionRequest): boolean {
  return request.functions != null;
}

/**
 * vLLM's request fields that constrain the answer's text: like response_format, they go only
 * with the final request, never with one that offers tools.
 */
const CONSTRAINT_FIELDS = new Set(["guided_json", "guided_regex", "guided_choice", "guided_grammar", "guided_decoding_backend", "guided_whitespace_pattern", "structured_outputs"]);

/** A request in the agent's terms. */
export interface AgentRequest {
  /** The client's system and developer messages, joined. */
  system: string;
  /** The conversation before the new input. */
  history: Message[];
  /** The last user message, or null when the conversation ends with results of client tools. */
  input: string | ContentPart[] | null;
  clientTools: ToolDefinition[];
  toolChoice?: ToolChoice;
  generation?: GenerationSettings;
  responseFormat?: ResponseFormat;
}

/** A request the gateway cannot turn into a turn; the message names the field. */
export class WireError extends Error {}

/** A part of a request checked against its schema, or a WireError naming where it went wrong. */
export function parseAt<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new WireError(`${where}${issue?.path.length ? `.${issue.path.join(".")}` : ""}: ${issue?.message ?? "invalid"}`);
}

export function toAgentRequest(request: ChatCompletionRequest): AgentRequest {
  if (request.functions != null && request.tools != null) throw new WireError("functions: send either tools or the legacy functions, not both");
  if (request.function_call != null && request.tool_choice != null) throw new WireError("function_call: send either tool_choice or the legacy function_call, not both");
  const system: string[] = [];
  const history: Message[] = [];
  // OpenAI's tool messages carry no name; the call they answer does.
  const callNames = new Map<string, string>();
  // Legacy function calls carry no id: each gets one from its message's place, and a function message answers the last unanswered call of its name.
  const unanswered = new Map<string, string>();
  request.messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    switch (message.role) {
      case "system":
      case "developer":
        system.push(textOf(message.content, where));
        break;
      case "user":
        history.push({ role: "user", content: userContent(message.content, where) });
        break;
      case "assistant": {
        const toolCalls: ToolCall[] = (message.tool_calls ?? []).map((call) => withSignature({ id: call.id, name: call.function.name, arguments: call.function.arguments }, call.extra_content));
        for (const call of toolCalls) callNames.set(call.id, call.name);
        if (message.function_call) {
          const id = `call_legacy_${index}`;
          toolCalls.push({ id, name: message.function_call.name, arguments: message.function_call.arguments });
          unanswered.set(message.function_call.name, id);
        }
        const out: Extract<Message, { role: "assistant" }> = { role: "assistant", content: message.content == null ? "" : textOf(message.content, where) };
        if (toolCalls.length > 0) out.toolCalls = toolCalls;
        if (message.reasoning_content) out.reasoning = message.reasoning_content;
        const sealed = (message.thinking_blocks ?? []).map(toReplyBlock);
        if (sealed.some(isSealed)) {
          // One message cannot say where thinking stood between the calls: it goes first, as a provider writes it.
          out.blocks = [...sealed, ...(out.content !== "" ? [{ type: "text" as const, text: out.content }] : []), ...toolCalls.map(() => ({ type: "tool-call" as const }))];
          const thought = sealed.map((block) => (block.type === "reasoning" ? block.text : "")).join("");
          if (out.reasoning === undefined && thought !== "") out.reasoning = thought;
        }
        history.push(out);
        break;
      }
      case "tool": {
        const { id } = unsignedCallId(message.tool_call_id);
        const name = callNames.get(id);
        if (name === undefined) throw new WireError(`${where}: tool_call_id "${message.tool_call_id}" answers no tool call of an earlier assistant message`);
        history.push({ role: "tool", toolCallId: id, name, content: userContent(message.content, where) });
        break;
      }
      case "function": {
        const id = unanswered.get(message.name);
        if (id === undefined) throw new WireError(`${where}: function message "${message.name}" answers no function_call of an earlier assistant message`);
        unanswered.delete(message.name);
        history.push({ role: "tool", toolCallId: id, name: message.name, content: message.content == null ? "" : userContent(message.content, where) });
        break;
      }
    }
  });
  const input = takeInput(history, request.messages.length);
  const functions = request.functions ?? (request.tools ?? []).map((tool) => tool.function);
  const clientTools = functions.map((fn): ToolDefinition => {
    const parameters = fn.parameters ?? { type: "object", properties: {} };
    return fn.description === undefined ? { name: fn.name, parameters } : { name: fn.name, description: fn.description, parameters };
  });
  const out: AgentRequest = { system: system.join("\n\n"), history, input, clientTools };
  const choice = request.tool_choice;
  const legacyChoice = request.function_call;
  if (choice) out.toolChoice = typeof choice === "string" ? choice : { name: choice.function.name };
  else if (legacyChoice) out.toolChoice = typeof legacyChoice === "string" ? legacyChoice : { name: legacyChoice.name };
  const generation = generationOf(request, OWN_FIELDS);
  // A legacy answer holds one call.
  if (usesLegacyFunctions(request)) generation.parallelToolCalls = false;
  if (Object.keys(generation).length > 0) out.generation = generation;
  const format = responseFormatOf(request);
  if (format) out.responseFormat = format;
  return out;
}

/**
 * Takes the new input off the end of a conversation: the last user message, or null when the
 * conversation ends with tool results (the loop goes on from them). `count` is the number of
 * wire messages, for the error.
 */
export function takeInput(history: Message[], count: number): AgentRequest["input"] {
  const last = history.at(-1);
  if (last === undefined) throw new WireError("messages: no user message");
  if (last.role === "user") {
    history.pop();
    return last.content;
  }
  if (last.role !== "tool") throw new WireError(`messages[${count - 1}]: the last message must be from the user or a tool result`);
  return null;
}

/**
 * The request's generation settings in the agent's terms. Every field outside `own` (the
 * fields the API reads itself) goes to the upstream as it is (vLLM's `chat_template_kwargs`,
 * `top_k`, `min_p`, ...), but for the fields that constrain the answer (see responseFormatOf).
 */
export function generationOf(request: SamplingRequest, own: ReadonlySet<string>): GenerationSettings {
  const out: GenerationSettings = {};
  if (request.top_p != null) out.topP = request.top_p;
  if (request.stop != null) out.stop = typeof request.stop === "string" ? [request.stop] : request.stop;
  if (request.seed != null) out.seed = request.seed;
  if (request.presence_penalty != null) out.presencePenalty = request.presence_penalty;
  if (request.frequency_penalty != null) out.frequencyPenalty = request.frequency_penalty;
  if (request.logit_bias != null) out.logitBias = request.logit_bias;
  if (request.logprobs != null) out.logprobs = request.logprobs;
  if (request.top_logprobs != null) out.topLogprobs = request.top_logprobs;
  if (request.reasoning_effort != null) out.reasoningEffort = request.reasoning_effort;
  if (request.parallel_tool_calls != null) out.parallelToolCalls = request.parallel_tool_calls;
  if (request.user != null) out.user = request.user;
  const extra = Object.entries(request).filter(([name]) => !own.has(name) && !CONSTRAINT_FIELDS.has(name));
  if (extra.length > 0) out.providerOptions = Object.fromEntries(extra);
  return out;
}

function responseFormatOf(request: ChatCompletionRequest): ResponseFormat | undefined {
  const format = request.response_format;
  if (format?.type === "json_object") return { type: "json" };
  if (format?.type === "json_schema") return jsonResponseFormat((format as Extract<typeof format, { type: "json_schema" }>).json_schema);
  return providerConstraints(request);
}

/** vLLM's own fields that constrain the answer (`guided_json`, `structured_outputs`, ...), as a format the final request takes. */
export function providerConstraints(request: Record<string, unknown>): ResponseFormat | undefined {
  const constraints = Object.entries(request).filter(([name]) => CONSTRAINT_FIELDS.has(name));
  return constraints.length > 0 ? { type: "provider", fields: Object.fromEntries(constraints) } : undefined;
}

/** A JSON schema format as chat completions (`json_schema: {...}`) and Responses (`format: {...}`) both describe it. */
export function jsonResponseFormat(format: { name?: string | undefined; description?: string | undefined; schema?: Record<string, unknown> | undefined; strict?: boolean | null | undefined }): ResponseFormat {
  const { name, description, schema, strict } = format;
  return {
    type: "json",
    ...(schema ? { schema } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(strict != null ? { strict } : {}),
  };
}

function textOf(content: z.infer<typeof ContentSchema>, where: string): string {
  if (typeof content === "string") return content;
  return content
    .map((part) => {
      if (part.type !== "text") throw new WireError(`${where}: only text content is accepted here, not "${part.type}"`);
      return (part as z.infer<typeof TextPartSchema>).text;
    })
    .join("");
}

const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]*)$/i;

/**
 * An image a client sent as a data: URL, or an http(s) URL that goes to the upstream as it is
 * (vLLM fetches it, within its own `--allowed-media-domains`); the gateway itself never fetches
 * a URL a client names.
 */
export function imagePart(url: string, where: string): ContentPart {
  const match = DATA_URL.exec(url);
  if (match) return { type: "image", mimeType: (match[1] as string).toLowerCase(), data: (match[2] as string).replace(/\s+/g, "") };
  if (isWebUrl(url)) return { type: "image-url", url };
  throw new WireError(`${where}: images are accepted as data: URLs (base64) or http(s) URLs`);
}

export function audioPart({ input_audio: { data, format } }: z.infer<typeof AudioPartSchema>): ContentPart {
  return { type: "audio", mimeType: format === "wav" ? "audio/wav" : "audio/mpeg", data };
}

/** The most bytes a text file may hold; its text goes into the prompt. */
export const MAX_FILE_TEXT_BYTES = 1024 * 1024;
const FILE_DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)((?:;[^;,]*)*);base64,([A-Za-z0-9+/=\s]*)$/i;
export const PDF = "application/pdf";
/** Files that are text whatever their subtype says. */
const TEXT_TYPES = /^(text\/|application\/(json|xml|yaml|x-yaml|toml|javascript|x-sh|sql|csv|[a-z0-9.+-]*\+(json|xml)))/i;

/**
 * A file a client sent inline (the Responses API's `input_file`), as the parts the model takes:
 * an image or audio file as that part, a PDF as a document (a model that cannot read one refuses
 * it, naming it), a text file (at most MAX_FILE_TEXT_BYTES, UTF-8) as text headed by its name.
 * Other types (office documents), files by id (OpenAI's Files API) and by URL (the gateway
 * fetches nothing a client names) are refused, naming what to send instead.
 */
export function filePart(file: { file_data?: string | null; file_id?: string | null; file_url?: string | null; filename?: string | null }, where: string): ContentPart {
  if (file.file_id != null) throw new WireError(`${where}: file_id names a file of OpenAI's Files API, which the gateway does not have; send the file itself as file_data (a base64 data: URL)`);
  if (file.file_url != null) throw new WireError(`${where}: the gateway fetches no file_url; send the file itself as file_data (a base64 data: URL)`);
  const match = FILE_DATA_URL.exec(file.file_data ?? "");
  if (!match) throw new WireError(`${where}: file_data must be a base64 data: URL (data:TYPE;base64,...)`);
  const mimeType = (match[1] as string).toLowerCase();
  const data = (match[3] as string).replace(/\s+/g, "");
  if (mimeType.startsWith("image/")) return { type: "image", mimeType, data };
  if (mimeType.startsWith("audio/")) return { type: "audio", mimeType, data };
  const name = fileName(file.filename);
  if (mimeType === PDF) return { type: "document", mimeType, data, ...(name !== "" ? { name } : {}) };
  if (!TEXT_TYPES.test(mimeType)) throw new WireError(`${where}: a file of type ${mimeType} cannot go to the model; send images, audio, PDF or text files`);
  const bytes = Buffer.from(data, "base64");
  if (bytes.length > MAX_FILE_TEXT_BYTES) throw new WireError(`${where}: the text file holds ${bytes.length} bytes, more than the ${MAX_FILE_TEXT_BYTES} a file may hold`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new WireError(`${where}: the file of type ${mimeType} is not UTF-8 text`);
  }
  return { type: "text", text: `${name === "" ? "File" : `File ${name}`}:\n${text}` };
}

/** A file name a client gave, as the model may read it: control characters blanked, at most 255 characters. */
export function fileName(name: string | null | undefined): string {
  return (name ?? "").replace(/[\u0000-\u001f\u007f]/g, " ").slice(0, 255);
}

/** An absolute http: or https: URL. */
export function isWebUrl(text: string): boolean {
  return URL.canParse(text) && ["http:", "https:"].includes(new URL(text).protocol);
}

function userContent(content: z.infer<typeof ContentSchema>, where: string): string | ContentPart[] {
  if (typeof content === "string") return content;
  return content.map((part, index): ContentPart => {
    if (part.type === "text") return { type: "text", text: (part as z.infer<typeof TextPartSchema>).text };
    if (part.type === "image_url") {
      return imagePart((part as z.infer<typeof ImagePartSchema>).image_url.url, `${where}.content[${index}]`);
    }
    if (part.type === "input_audio") return audioPart(part as z.infer<typeof AudioPartSchema>);
    if (part.type === "file") {
      const file = FilePartSchema.safeParse(part);
      if (!file.success) throw new WireError(`${where}.content[${index}]: a file part takes {file: {file_data, file_id, filename}} as strings`);
      return filePart(file.data.file, `${where}.content[${index}]`);
    }
    throw new WireError(`${where}.content[${index}]: content parts of type "${part.type}" are not supported`);
  });
}

export function completionId(): string {
  return `chatcmpl-${randomHex(12)}`;
}

/** `function_call`: the answer's call of a client function, to a request that used legacy `functions`. */
export type FinishReason = "stop" | "tool_calls" | "function_call" | "length";

export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export function wireUsage(usage: Usage): WireUsage {
  return { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.totalTokens };
}

function wireToolCalls(calls: readonly ToolCall[]) {
  return calls.map((call, index) => ({ index, id: signedCallId(call), type: "function" as const, function: { name: call.name, arguments: call.arguments }, ...signatureField(call) }));
}

/**
 * An answer's calls of client tools, as a message or a streamed delta carries them:
 * `tool_calls`, or the one legacy `function_call` when the answer finishes with one.
 */
export function callFields(answer: Pick<Answer, "toolCalls" | "finishReason">, streamed: boolean): Record<string, unknown> {
  const [first] = answer.toolCalls;
  if (first === undefined) return {};
  if (answer.finishReason === "function_call") return { function_call: { name: first.name, arguments: first.arguments } };
  const calls = wireToolCalls(answer.toolCalls);
  return { tool_calls: streamed ? calls : calls.map(({ index: _index, ...call }) => call) };
}

/** One choice. */
export interface Answer {
  content: string;
  reasoning: string;
  /** Signed and redacted thinking, in order, when the provider gave any. */
  thinkingBlocks: readonly ThinkingBlock[];
  logprobs: readonly TokenLogprob[];
  toolCalls: readonly ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
}

/** A whole `chat.completion`; `usage` is that of every choice together. */
export function completionObject(id: string, model: string, created: number, answers: readonly Answer[], usage: Usage) {
  return {
    id,
    object: "chat.completion",
    created,
    model,
    choices: answers.map((answer, index) => {
      const message: Record<string, unknown> = { role: "assistant", content: answer.content === "" && answer.toolCalls.length > 0 ? null : answer.content };
      if (answer.reasoning !== "") message.reasoning_content = answer.reasoning;
      if (answer.thinkingBlocks.length > 0) message.thinking_blocks = answer.thinkingBlocks;
      Object.assign(message, callFields(answer, false));
      return { index, message, logprobs: answer.logprobs.length > 0 ? { content: answer.logprobs } : null, finish_reason: answer.finishReason };
    }),
    usage: wireUsage(usage),
  };
}

/** Makes the `chat.completion.chunk`s of one streamed answer. */
export class ChunkWriter {
  constructor(
    private readonly id: string,
    private readonly model: string,
    private readonly created: number,
  ) {}

  delta(delta: Record<string, unknown>, finishReason: FinishReason | null = null, index = 0, logprobs?: readonly TokenLogprob[]) {
    return {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.model,
      choices: [{ index, delta, logprobs: logprobs ? { content: logprobs } : null, finish_reason: finishReason }],
    };
  }

  usage(usage: Usage) {
    return { id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, choices: [], usage: wireUsage(usage) };
  }
}

/** OpenAI's error body. */
export function errorBody(message: string, type: string, code: string | null = null) {
  return { error: { message, type, param: null, code } };
}
