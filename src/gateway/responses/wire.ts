import { z } from "zod";
import { refusalMessage } from "../../agent/approval.js";
import type { ContentPart, GenerationSettings, Message, ReplyBlock, ResponseFormat, ToolCall, ToolDefinition, Usage } from "../../llm/types.js";
import { audioPart, AudioPartSchema, parseAt, ExtraContentSchema, withSignature, filePart, generationOf, imagePart, jsonResponseFormat, providerConstraints, SAMPLING_FIELDS, WireError } from "../openai-wire.js";
import { listOf, textOrListOf, WIRE_LIMITS } from "../wire-limits.js";
import { CallIdSchema, unsignedCallId } from "../signed-call-id.js";
import { unsealBlock } from "../thinking-blocks.js";
import { randomHex } from "../random-hex.js";

/**
 * The Responses API's wire format as the gateway reads and writes it: the request, its input
 * items, and the conversation they make in the agent's terms. Items are kept as the client
 * sent them (stored, listed, sent back), and read through these schemas when a turn needs them.
 */

const FunctionToolSchema = z.looseObject({
  type: z.literal("function"),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "tool names are 1 to 64 letters, digits, _ or -"),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
});

/** OpenAI's grouping of function tools under one name (`{"type": "namespace", name, tools}`); Codex sends its MCP tools so. */
const NamespaceToolSchema = z.looseObject({
  type: z.literal("namespace"),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "namespace names are 1 to 64 letters, digits, _ or -"),
  description: z.string().nullish(),
  tools: listOf(z.looseObject({ type: z.string() }), WIRE_LIMITS.tools, "tools"),
});

const ToolFilterSchema = z.looseObject({ tool_names: listOf(z.string(), WIRE_LIMITS.tools, "tool names").optional(), read_only: z.boolean().optional() });

export const McpToolSchema = z.looseObject({
  type: z.literal("mcp"),
  server_label: z.string().min(1),
  server_url: z.string().optional(),
  allowed_tools: z.union([listOf(z.string(), WIRE_LIMITS.tools, "tool names"), ToolFilterSchema]).nullish(),
  require_approval: z
    .union([z.enum(["always", "never"]), z.looseObject({ always: ToolFilterSchema.optional(), never: ToolFilterSchema.optional() })])
    .nullish(),
});
export type McpTool = z.infer<typeof McpToolSchema>;

/** Responses puts the json_schema's fields beside its type, where chat completions nests them in `json_schema`. */
const TextFormatSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text") }),
  z.looseObject({ type: z.literal("json_object") }),
  z.looseObject({
    type: z.literal("json_schema"),
    name: z.string().optional(),
    description: z.string().optional(),
    schema: z.record(z.string(), z.unknown()),
    strict: z.boolean().nullish(),
  }),
]);

const ToolSchema = z.union([FunctionToolSchema, McpToolSchema, NamespaceToolSchema, z.looseObject({ type: z.string() })]);

export const ResponsesRequestSchema = z.looseObject({
  // Chat completions' sampling fields, as vLLM's own Responses endpoint also takes them (seed, stop, penalties, ...).
  ...SAMPLING_FIELDS,
  model: z.string().min(1),
  input: textOrListOf(z.looseObject({}), WIRE_LIMITS.messages, "items").optional(),
  instructions: z.string().nullish(),
  tools: listOf(ToolSchema, WIRE_LIMITS.tools, "tools").nullish(),
  tool_choice: z
    .union([z.enum(["auto", "required", "none"]), z.looseObject({ type: z.literal("function"), name: z.string() }), z.looseObject({ type: z.string() })])
    .nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  /** The MCP tool calls the loop may run for this response; calls past it are not run. */
  max_tool_calls: z.number().int().min(0).nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().min(1).max(200).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  reasoning: z.looseObject({ effort: z.string().nullish(), summary: z.string().nullish() }).nullish(),
  /** `message.output_text.logprobs` asks for the tokens' log probabilities. */
  include: z.array(z.string()).max(100).nullish(),
  /** The answer's form: `{format: {type: "text" | "json_object" | "json_schema", ...}}` (`responses.parse`, the Agents SDK's output types). */
  text: z.looseObject({ format: TextFormatSchema.nullish(), verbosity: z.string().nullish() }).nullish(),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;

/**
 * The Responses fields the gateway reads itself, and OpenAI's that concern its own platform
 * (background runs, its conversations and prompt objects, truncation). `metadata` tags the
 * response and stays with it: OpenAI's chat completions refuse it unless they store the
 * completion. Every other field goes to the upstream as it is: chat completions' names for
 * the same things (`safety_identifier`, `prompt_cache_key`, `service_tier`) and vLLM's extras.
 */
const RESPONSES_OWN_FIELDS = new Set([
  ...Object.keys(ResponsesRequestSchema.shape),
  "background",
  "context_management",
  "conversation",
  "prompt",
  "prompt_cache_retention",
  "stream_options",
  "truncation",
]);

/** Logprobs are asked for as OpenAI's Responses API asks: by `include`, or by `top_logprobs`. */
export function wantsLogprobs(request: ResponsesRequest): boolean {
  return request.include?.includes("message.output_text.logprobs") === true || (request.top_logprobs ?? 0) > 0;
}

/** The request's generation settings, under chat completions' names where Responses has its own (`reasoning.effort`, `text.verbosity`). */
export function responsesGeneration(request: ResponsesRequest): GenerationSettings {
  const effort = request.reasoning?.effort;
  const verbosity = request.text?.verbosity;
  return generationOf(
    {
      ...request,
      ...(effort != null ? { reasoning_effort: effort } : {}),
      ...(wantsLogprobs(request) ? { logprobs: true } : {}),
      ...(verbosity != null ? { verbosity } : {}),
    },
    RESPONSES_OWN_FIELDS,
  );
}

/** Items as stored and sent: JSON objects with a `type`. */
export type Item = Record<string, unknown>;

const PartSchema = z.looseObject({ type: z.string(), text: z.string().optional(), image_url: z.string().nullish(), refusal: z.string().optional() });
const InputFileSchema = z.looseObject({ file_data: z.string().nullish(), file_id: z.string().nullish(), file_url: z.string().nullish(), filename: z.string().nullish() });
const MessageItemSchema = z.looseObject({
  type: z.literal("message").optional(),
  role: z.enum(["user", "system", "developer", "assistant"]),
  content: textOrListOf(PartSchema, WIRE_LIMITS.parts, "content parts"),
});
const FunctionCallSchema = z.looseObject({ type: z.literal("function_call"), call_id: CallIdSchema.min(1), name: z.string().min(1), namespace: z.string().nullish(), arguments: z.string(), extra_content: ExtraContentSchema });
const FunctionOutputSchema = z.looseObject({
  type: z.literal("function_call_output"),
  call_id: CallIdSchema.min(1),
  output: textOrListOf(PartSchema, WIRE_LIMITS.parts, "content parts"),
});
const ReasoningSchema = z.looseObject({
  type: z.literal("reasoning"),
  summary: listOf(z.looseObject({ text: z.string() }), WIRE_LIMITS.parts, "summary parts").optional(),
  content: listOf(z.looseObject({ text: z.string() }), WIRE_LIMITS.parts, "content parts").nullish(),
  encrypted_content: z.string().nullish(),
});
const McpCallSchema = z.looseObject({
  type: z.literal("mcp_call"),
  id: z.string().min(1),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string(),
  output: z.string().nullish(),
  error: z.string().nullish(),
  /** The gateway's own: the result with its images (see mcpCallOutput). */
  output_parts: listOf(PartSchema, WIRE_LIMITS.parts, "output parts").nullish(),
  approval_request_id: z.string().nullish(),
});
export const McpApprovalRequestSchema = z.looseObject({
  type: z.literal("mcp_approval_request"),
  id: z.string().min(1),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export const McpApprovalResponseSchema = z.looseObject({
  type: z.literal("mcp_approval_response"),
  approval_request_id: z.string().min(1),
  approve: z.boolean(),
  reason: z.string().nullish(),
});

export function newId(prefix: string): string {
  return `${prefix}_${randomHex(16)}`;
}

/**
 * The id of an item of a response: it names the response (`msg_<the response's hex><its own>`),
 * so that an `item_reference` to it finds the stored response it is kept in.
 */
export function itemId(prefix: string, responseId: string): string {
  return `${prefix}_${responseId.slice("resp_".length)}${randomHex(8)}`;
}

/** The response an item id made by itemId names; undefined for any other id. */
export function responseOfItem(id: string): string | undefined {
  const match = /^[a-z]+_([0-9a-f]{32})[0-9a-f]{16}$/.exec(id);
  return match ? `resp_${match[1]}` : undefined;
}

/** OpenAI's `{"type": "item_reference", "id"}`: an item of an earlier response, named instead of sent again. */
export const ItemReferenceSchema = z.looseObject({ type: z.literal("item_reference"), id: z.string().min(1).max(200) });

/** The request's input as items, each with an id (what the input-items listing shows); item references stay as they are. */
export function inputItems(input: ResponsesRequest["input"], responseId: string): Item[] {
  if (input === undefined) return [];
  const items: Item[] = typeof input === "string" ? [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }] : input;
  return items.map((item) => {
    const type = typeof item.type === "string" ? item.type : "message";
    return typeof item.id === "string" || type === "item_reference" ? { ...item, type } : { id: itemId(type === "message" ? "msg" : "item", responseId), ...item, type };
  });
}

/** How an MCP call's server and tool name map to the name the model knows the tool by. */
export type ExposedName = (serverLabel: string, toolName: string) => string;

export interface Conversation {
  /** System and developer messages of the input, in order. */
  system: string[];
  messages: Message[];
}

/**
 * The conversation the items make, in the agent's terms. A function call's output answers
 * the call of the same `call_id`; an MCP call becomes the model's call and its result; an
 * approval request the client never answered is left out (the model asked, nothing ran).
 */
export function toConversation(items: readonly Item[], exposedName: ExposedName, where: (index: number) => string): Conversation {
  const system: string[] = [];
  const messages: Message[] = [];
  const callNames = new Map<string, string>();
  const approvals = new Map<string, z.infer<typeof McpApprovalRequestSchema>>();
  let reasoning = "";
  // Signed or redacted reasoning (sealed in `encrypted_content`) not yet in an assistant message.
  let sealed: ReplyBlock[] = [];
  // The assistant message later calls join, while nothing else came between.
  let open: Extract<Message, { role: "assistant" }> | undefined;
  const assistant = (): Extract<Message, { role: "assistant" }> => {
    if (open) return open;
    const message: Extract<Message, { role: "assistant" }> = { role: "assistant", content: "" };
    if (reasoning !== "") message.reasoning = reasoning;
    if (sealed.length > 0) message.blocks = sealed;
    reasoning = "";
    sealed = [];
    messages.push(message);
    open = message;
    return message;
  };
  const call = (message: Extract<Message, { role: "assistant" }>, toolCall: ToolCall) => {
    message.toolCalls = [...(message.toolCalls ?? []), toolCall];
    message.blocks?.push({ type: "tool-call" });
    callNames.set(toolCall.id, toolCall.name);
  };
  items.forEach((item, index) => {
    const at = where(index);
    switch (item.type) {
      case "message": {
        const message = parseAt(MessageItemSchema, item, at);
        if (message.role === "system" || message.role === "developer") {
          system.push(textOf(message.content, at));
          return;
        }
        if (message.role === "assistant") {
          open = undefined;
          const reply = assistant();
          reply.content = textOf(message.content, at);
          reply.blocks?.push({ type: "text", text: reply.content });
          return;
        }
        open = undefined;
        messages.push({ role: "user", content: userContent(message.content, at) });
        return;
      }
      case "reasoning": {
        const parsed = parseAt(ReasoningSchema, item, at);
        // The gateway's own items carry the thinking twice (content and summary); OpenAI's only as a summary.
        const parts = parsed.content && parsed.content.length > 0 ? parsed.content : (parsed.summary ?? []);
        const block = parsed.encrypted_content ? unsealBlock(parsed.encrypted_content) : undefined;
        if (block instanceof Error) throw new WireError(`${at}.encrypted_content: ${block.message}`);
        if (!block) {
          reasoning += parts.map((part) => part.text).join("");
          open = undefined;
        } else if (open?.blocks) {
          // Thinking between the calls of one reply (interleaved): it stays in that reply, in its place.
          open.blocks.push(block);
          if (block.type === "reasoning") open.reasoning = (open.reasoning ?? "") + block.text;
        } else {
          sealed.push(block);
          if (block.type === "reasoning") reasoning += block.text;
          open = undefined;
        }
        return;
      }
      case "function_call": {
        const fn = parseAt(FunctionCallSchema, item, at);
        call(assistant(), withSignature({ id: fn.call_id, name: fn.namespace ? namespacedName(fn.namespace, fn.name) : fn.name, arguments: fn.arguments }, fn.extra_content));
        return;
      }
      case "function_call_output": {
        const output = parseAt(FunctionOutputSchema, item, at);
        const { id } = unsignedCallId(output.call_id);
        const name = callNames.get(id);
        if (name === undefined) throw new WireError(`${at}: call_id "${output.call_id}" answers no function_call before it`);
        open = undefined;
        messages.push({ role: "tool", toolCallId: id, name, content: typeof output.output === "string" ? output.output : userContent(output.output, at) });
        return;
      }
      case "mcp_call": {
        const mcp = parseAt(McpCallSchema, item, at);
        const requested = mcp.approval_request_id ? approvals.get(mcp.approval_request_id) : undefined;
        const id = requested?.id ?? mcp.id;
        // The call joins the words the model said before it, as a client's function_call does: one assistant message, roles alternating.
        call(assistant(), { id, name: exposedName(mcp.server_label, mcp.name), arguments: mcp.arguments });
        open = undefined;
        const isError = mcp.error != null && mcp.error !== "";
        const content = mcp.output_parts ? userContent(mcp.output_parts, `${at}.output_parts`) : ((isError ? mcp.error : mcp.output) ?? "");
        messages.push({ role: "tool", toolCallId: id, name: exposedName(mcp.server_label, mcp.name), content, ...(isError ? { isError: true } : {}) });
        return;
      }
      case "mcp_approval_request": {
        const request = parseAt(McpApprovalRequestSchema, item, at);
        approvals.set(request.id, request);
        return;
      }
      case "mcp_approval_response": {
        const answer = parseAt(McpApprovalResponseSchema, item, at);
        const request = approvals.get(answer.approval_request_id);
        if (!request) throw new WireError(`${at}: approval_request_id "${answer.approval_request_id}" answers no mcp_approval_request of this conversation`);
        // An approved call shows as the mcp_call that ran it; a refusal is told to the model here.
        if (answer.approve) return;
        const name = exposedName(request.server_label, request.name);
        call(assistant(), { id: request.id, name, arguments: request.arguments });
        open = undefined;
        const refusal = refusalMessage(name, answer.reason ? { run: false, asked: true, reason: answer.reason } : { run: false, asked: true });
        messages.push({ role: "tool", toolCallId: request.id, name, content: refusal, isError: true });
        return;
      }
      case "mcp_list_tools":
        return;
      default:
        throw new WireError(`${at}: items of type "${String(item.type)}" are not supported here`);
    }
  });
  return { system, messages };
}

function textOf(content: string | z.infer<typeof PartSchema>[], where: string): string {
  if (typeof content === "string") return content;
  return content
    .map((part, index) => {
      if (part.type === "input_text" || part.type === "output_text" || part.type === "text") return part.text ?? "";
      if (part.type === "refusal") return part.refusal ?? "";
      throw new WireError(`${where}.content[${index}]: only text is accepted here, not "${part.type}"`);
    })
    .join("");
}

function userContent(content: string | z.infer<typeof PartSchema>[], where: string): string | ContentPart[] {
  if (typeof content === "string") return content;
  const parts = content.map((part, index): ContentPart => {
    if (part.type === "input_text" || part.type === "output_text" || part.type === "text") return { type: "text", text: part.text ?? "" };
    if (part.type === "input_image") return imagePart(part.image_url ?? "", `${where}.content[${index}]`);
    if (part.type === "input_file") {
      const file = InputFileSchema.safeParse(part);
      if (!file.success) throw new WireError(`${where}.content[${index}]: input_file takes file_data, file_id, file_url and filename as strings`);
      return filePart(file.data, `${where}.content[${index}]`);
    }
    if (part.type === "input_audio") {
      const audio = AudioPartSchema.safeParse(part);
      if (!audio.success) throw new WireError(`${where}.content[${index}]: input_audio takes {data: base64, format: "wav" or "mp3"}`);
      return audioPart(audio.data);
    }
    throw new WireError(`${where}.content[${index}]: content parts of type "${part.type}" are not supported`);
  });
  // Text alone goes as a string, which every chat template reads.
  return parts.every((part) => part.type === "text") ? parts.map((part) => (part as { text: string }).text).join("") : parts;
}

/** A function of a namespace, as the client knows it (a `function_call` item's `name` and `namespace`). */
export interface NamespacedFunction {
  namespace: string;
  name: string;
}

/** The request's tools the model is offered, and what became of the rest. */
export interface ClientTools {
  definitions: ToolDefinition[];
  /** OpenAI's hosted tools the gateway cannot run (web_search, file_search, ...), left out. */
  ignored: string[];
  /** The functions of namespaces, by the name the model knows them by. */
  namespaced: Map<string, NamespacedFunction>;
}

/**
 * The name a namespace's function has for the model, which knows no namespaces: the two
 * joined by `__`, or put together when the namespace already ends in `_` (Codex's
 * `mcp__server__` and `tool` make `mcp__server__tool`, the name Codex itself once used).
 */
export function namespacedName(namespace: string, name: string): string {
  return namespace.endsWith("_") ? `${namespace}${name}` : `${namespace}__${name}`;
}

/**
 * The request's function tools, as the model is offered them; a namespace's functions under
 * their joined names. OpenAI's hosted tools the gateway cannot run are left out and named in
 * `ignored`, so that clients which always send them (Codex) still work.
 */
export function clientFunctionTools(tools: ResponsesRequest["tools"]): ClientTools {
  const out: ClientTools = { definitions: [], ignored: [], namespaced: new Map() };
  const add = (fn: z.infer<typeof FunctionToolSchema>, name: string, where: string) => {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) throw new WireError(`${where}: "${name}" is longer than the 64 characters a tool name may have; shorten the namespace or the function's name`);
    if (out.definitions.some((tool) => tool.name === name)) throw new WireError(`${where}: a tool named "${name}" is already declared`);
    const parameters = fn.parameters ?? { type: "object", properties: {} };
    out.definitions.push(fn.description == null ? { name, parameters } : { name, description: fn.description, parameters });
  };
  (tools ?? []).forEach((tool, index) => {
    if (tool.type === "mcp") return;
    if (tool.type === "function") return add(tool as z.infer<typeof FunctionToolSchema>, (tool as z.infer<typeof FunctionToolSchema>).name, `tools[${index}]`);
    if (tool.type === "namespace") {
      const namespace = parseAt(NamespaceToolSchema, tool, `tools[${index}]`);
      namespace.tools.forEach((member, at) => {
        const where = `tools[${index}].tools[${at}]`;
        if (member.type !== "function") {
          out.ignored.push(`${namespace.name}:${member.type}`);
          return;
        }
        const fn = parseAt(FunctionToolSchema, member, where);
        const name = namespacedName(namespace.name, fn.name);
        add({ ...fn, description: fn.description ?? namespace.description }, name, where);
        out.namespaced.set(name, { namespace: namespace.name, name: fn.name });
      });
      return;
    }
    out.ignored.push(typeof (tool as { name?: unknown }).name === "string" ? `${tool.type}:${String((tool as { name: string }).name)}` : tool.type);
  });
  return out;
}

/** The request's `text.format` (or vLLM's constraint fields) in the agent's terms: the loop runs with tools, and the final answer takes the form. */
export function responseFormat(request: ResponsesRequest): ResponseFormat | undefined {
  const format = request.text?.format;
  if (format?.type === "json_object") return { type: "json" };
  return format?.type === "json_schema" ? jsonResponseFormat(format as Extract<typeof format, { type: "json_schema" }>) : providerConstraints(request);
}

export function responseUsage(usage: Usage) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.totalTokens,
  };
}
