import { z } from "zod";
import { parseToolArguments } from "../../agent/tool-arguments.js";
import type { ContentPart, GenerationSettings, Message, ReplyBlock, ToolCall, ToolDefinition, Usage } from "../../llm/types.js";
import { fileName, isWebUrl, MAX_FILE_TEXT_BYTES, parseAt, PDF, takeInput, WireError, type AgentRequest } from "../openai-wire.js";
import { isSealed } from "../../llm/reply-block.js";
import { listOf, partOf, textOrListOf, WIRE_LIMITS } from "../wire-limits.js";
import { CallIdSchema, unsignedCallId } from "../signed-call-id.js";
import { ClientThinkingBlockSchema, toReplyBlock, type ThinkingBlock } from "../thinking-blocks.js";
import { randomHex } from "../random-hex.js";

/**
 * Anthropic's Messages API as the gateway reads and writes it: requests are checked with these
 * schemas (fields not used are let through, as Anthropic's own server does for `cache_control`
 * and the like), and answers, stream events and errors are made here.
 */

const MAX_STOP_SEQUENCES = 16;

const TextBlockSchema = z.looseObject({ type: z.literal("text"), text: z.string() });
const ImageBlockSchema = z.looseObject({
  type: z.literal("image"),
  source: z.looseObject({ type: z.string(), media_type: z.string().optional(), data: z.string().optional(), url: z.string().optional() }),
});
const DocumentBlockSchema = z.looseObject({
  type: z.literal("document"),
  source: z.looseObject({
    type: z.string(),
    media_type: z.string().optional(),
    data: z.string().optional(),
    // A "content" source: the document's text (and images) as blocks.
    content: textOrListOf(z.looseObject({ type: z.string() }), WIRE_LIMITS.parts, "content blocks").optional(),
  }),
  title: z.string().nullish(),
  context: z.string().nullish(),
});
const ToolResultBlockSchema = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: CallIdSchema,
  content: textOrListOf(partOf(TextBlockSchema, ImageBlockSchema), WIRE_LIMITS.parts, "content blocks").optional(),
  is_error: z.boolean().optional(),
});
const ToolUseBlockSchema = z.looseObject({ type: z.literal("tool_use"), id: CallIdSchema, name: z.string().min(1), input: z.unknown() });
const BlockSchema = partOf(TextBlockSchema, ImageBlockSchema, ToolResultBlockSchema, ToolUseBlockSchema, ClientThinkingBlockSchema);

const ClientToolSchema = z.looseObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "tool names are 1 to 64 letters, digits, _ or -"),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
});

export const MessagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  // "system" in the conversation: what Claude Code sends for instructions that arrive mid-session.
  messages: listOf(z.looseObject({ role: z.enum(["user", "assistant", "system"]), content: textOrListOf(BlockSchema, WIRE_LIMITS.parts, "content blocks") }), WIRE_LIMITS.messages, "messages").min(1),
  system: textOrListOf(TextBlockSchema, WIRE_LIMITS.parts, "system blocks").optional(),
  stream: z.boolean().optional(),
  stop_sequences: z.array(z.string()).max(MAX_STOP_SEQUENCES, `at most ${MAX_STOP_SEQUENCES} stop sequences`).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  tools: listOf(ClientToolSchema, WIRE_LIMITS.tools, "tools").optional(),
  tool_choice: z
    .looseObject({ type: z.enum(["auto", "any", "tool", "none"]), name: z.string().optional(), disable_parallel_tool_use: z.boolean().optional() })
    .optional(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).optional(),
  // Anthropic's thinking switch; "adaptive" and "between_tools" leave the amount to the model.
  thinking: z
    .discriminatedUnion("type", [
      z.looseObject({ type: z.literal("enabled"), budget_tokens: z.number().int().positive() }),
      z.looseObject({ type: z.literal("disabled") }),
      z.looseObject({ type: z.enum(["adaptive", "between_tools"]) }),
    ])
    .optional(),
});

export type MessagesRequest = z.infer<typeof MessagesRequestSchema>;

/** `count_tokens` takes the request without the answer's settings. */
export const CountTokensRequestSchema = MessagesRequestSchema.omit({ max_tokens: true, stream: true });

/** What a conversation is made of, in either request. */
type ConversationRequest = z.infer<typeof CountTokensRequestSchema>;

type Block = z.infer<typeof BlockSchema>;

export function toAgentRequest(request: ConversationRequest): AgentRequest {
  const system = [typeof request.system === "string" ? request.system : (request.system ?? []).map((block) => block.text).join("\n\n")];
  const history: Message[] = [];
  // A tool_result names only the call it answers; the call names the tool.
  const callNames = new Map<string, string>();
  request.messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    const blocks: Block[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (message.role === "system") {
      // The model gets one system prompt; instructions given later in the conversation join it.
      system.push(blocks.map((block, at) => (block.type === "text" ? (block as z.infer<typeof TextBlockSchema>).text : unsupported(block, `${where}.content[${at}]`))).join(""));
      return;
    }
    if (message.role === "assistant") {
      history.push(assistantMessage(blocks, where, callNames));
      return;
    }
    const parts: ContentPart[] = [];
    blocks.forEach((block, at) => {
      const place = `${where}.content[${at}]`;
      if (block.type === "tool_result") {
        // Checked here: the union's catch-all would take a malformed one.
        const result = parseAt(ToolResultBlockSchema, block, place);
        const { id } = unsignedCallId(result.tool_use_id);
        const name = callNames.get(id);
        if (name === undefined) throw new WireError(`${place}: tool_use_id "${result.tool_use_id}" answers no tool_use of an earlier assistant message`);
        const content = typeof result.content === "string" || result.content === undefined ? (result.content ?? "") : result.content.flatMap((part, i) => contentParts(part, `${place}.content[${i}]`));
        history.push({ role: "tool", toolCallId: id, name, content, ...(result.is_error ? { isError: true } : {}) });
      } else {
        parts.push(...contentParts(block, place));
      }
    });
    if (parts.length > 0) history.push({ role: "user", content: parts.every((part) => part.type === "text") ? parts.map((part) => (part as { text: string }).text).join("") : parts });
  });
  const input = takeInput(history, request.messages.length);
  const clientTools = (request.tools ?? []).map((tool): ToolDefinition => ({ name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), parameters: tool.input_schema }));
  const out: AgentRequest = { system: system.filter((text) => text !== "").join("\n\n"), history, input, clientTools };
  const choice = request.tool_choice;
  if (choice) out.toolChoice = choice.type === "any" ? "required" : choice.type === "tool" ? { name: choice.name ?? "" } : choice.type;
  const generation: GenerationSettings = {};
  if (request.top_p !== undefined) generation.topP = request.top_p;
  if (request.top_k !== undefined) generation.topK = request.top_k;
  if (request.stop_sequences !== undefined) generation.stop = request.stop_sequences;
  if (request.metadata?.user_id) generation.user = request.metadata.user_id;
  if (choice?.disable_parallel_tool_use) generation.parallelToolCalls = false;
  const thinking = request.thinking;
  if (thinking) generation.thinking = thinking.type === "enabled" ? { enabled: true, budgetTokens: thinking.budget_tokens } : { enabled: thinking.type !== "disabled" };
  if (Object.keys(generation).length > 0) out.generation = generation;
  return out;
}

/**
 * An assistant turn. Its blocks are kept in order when a provider signed or redacted thinking in
 * it: an Anthropic model wants those back unchanged and in place, between its tool calls too.
 */
function assistantMessage(blocks: readonly Block[], where: string, callNames: Map<string, string>): Message {
  let content = "";
  let reasoning = "";
  const toolCalls: ToolCall[] = [];
  const order: ReplyBlock[] = [];
  for (const [index, block] of blocks.entries()) {
    if (block.type === "text") {
      const { text } = block as z.infer<typeof TextBlockSchema>;
      content += text;
      order.push({ type: "text", text });
    } else if (block.type === "thinking" || block.type === "redacted_thinking") {
      // Checked here: the union's catch-all would take a malformed or oversized one.
      const thinking = toReplyBlock(parseAt(ClientThinkingBlockSchema, block, `${where}.content[${index}]`));
      if (thinking.type === "reasoning") reasoning += thinking.text;
      order.push(thinking);
    } else if (block.type === "tool_use") {
      const call = parseAt(ToolUseBlockSchema, block, `${where}.content[${index}]`);
      // The provider gets its own id back, and the thought signature the id carried beside it.
      const { id, signature } = unsignedCallId(call.id);
      callNames.set(id, call.name);
      toolCalls.push({ id, name: call.name, arguments: JSON.stringify(call.input ?? {}), ...(signature !== undefined ? { signature } : {}) });
      order.push({ type: "tool-call" });
    } else throw new WireError(`${where}: assistant content blocks of type "${block.type}" are not supported`);
  }
  return { role: "assistant", content, ...(toolCalls.length > 0 ? { toolCalls } : {}), ...(reasoning !== "" ? { reasoning } : {}), ...(order.some(isSealed) ? { blocks: order } : {}) };
}

function contentParts(block: { type: string }, where: string): ContentPart[] {
  if (block.type === "text") return [{ type: "text", text: (block as z.infer<typeof TextBlockSchema>).text }];
  if (block.type === "image") {
    const { source } = block as z.infer<typeof ImageBlockSchema>;
    // A URL goes to the upstream, which fetches it; the gateway never fetches what a client names.
    if (source.type === "url" && source.url !== undefined && isWebUrl(source.url)) return [{ type: "image-url", url: source.url }];
    if (source.type !== "base64" || !source.media_type?.startsWith("image/") || source.data === undefined) {
      throw new WireError(`${where}: images are accepted as base64 sources or http(s) url sources`);
    }
    return [{ type: "image", mimeType: source.media_type, data: source.data }];
  }
  if (block.type === "document") return documentParts(block as z.infer<typeof DocumentBlockSchema>, where);
  return unsupported(block, where);
}

/**
 * A document block as the parts the model takes: a base64 PDF as a document (a model that cannot
 * read one refuses it, naming it); a plain-text or a "content" source as its text, marked as a
 * document with its title and context, the content's images as images. A PDF by URL or by a
 * Files API id is refused: the gateway fetches nothing a client names.
 */
function documentParts({ source, title, context }: z.infer<typeof DocumentBlockSchema>, where: string): ContentPart[] {
  const name = fileName(title);
  if (source.type === "base64" && source.media_type === PDF && source.data !== undefined) return [{ type: "document", mimeType: PDF, data: source.data, ...(name !== "" ? { name } : {}) }];
  if (source.type === "text" && source.data !== undefined) return [documentText(source.data, name, context, where)];
  if (source.type === "content" && source.content !== undefined) {
    if (typeof source.content === "string") return [documentText(source.content, name, context, where)];
    const parts = source.content.flatMap((block, i) => (block.type === "text" || block.type === "image" ? contentParts(block, `${where}.source.content[${i}]`) : unsupported(block, `${where}.source.content[${i}]`)));
    const text = parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
    return [documentText(text, name, context, where), ...parts.filter((part) => part.type !== "text")];
  }
  if (source.type === "url" || source.type === "file") {
    throw new WireError(`${where}: the gateway fetches no document by ${source.type === "url" ? "URL" : "file id"}; send a PDF as a base64 source, or text as a text source`);
  }
  throw new WireError(`${where}: documents are accepted as base64 PDF sources (media_type application/pdf), text sources and content sources`);
}

/** A text document as the model reads it: marked off from the message around it, named by its title and context. */
function documentText(text: string, title: string, context: string | null | undefined, where: string): ContentPart {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_FILE_TEXT_BYTES) throw new WireError(`${where}: the document holds ${bytes} bytes of text, more than the ${MAX_FILE_TEXT_BYTES} a document may hold`);
  const about = [title !== "" ? `Document: ${title}` : "Document", ...(context ? [`Context: ${fileName(context.slice(0, 4096))}`] : [])].join("\n");
  return { type: "text", text: `\n<document>\n${about}\n\n${text}\n</document>\n` };
}

function unsupported(block: { type: string }, where: string): never {
  throw new WireError(`${where}: content blocks of type "${block.type}" are not supported`);
}

export function messageId(): string {
  return `msg_${randomHex(12)}`;
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence";

/** An answer's content block, as a whole message holds it and as `content_block_start` opens it. */
export type ContentBlock =
  | { type: "text"; text: string }
  | ThinkingBlock
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** A tool_use block's input: the model's arguments as an object (what is not one becomes `{}`, the client's tool validates). */
export function toolInput(call: ToolCall): Record<string, unknown> {
  const parsed = parseToolArguments(call.arguments);
  return parsed.ok ? parsed.arguments : {};
}

export function wireUsage(usage: Usage) {
  return { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens };
}

/** A whole `message`. */
export function messageObject(id: string, model: string, content: readonly ContentBlock[], stopReason: StopReason, usage: Usage, stopSequence: string | null = null) {
  return { id, type: "message", role: "assistant", model, content, stop_reason: stopReason, stop_sequence: stopSequence, usage: wireUsage(usage) };
}

/** `message_start`: the message before any content. */
export function messageStart(id: string, model: string) {
  return { type: "message_start", message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } } };
}

/** Anthropic's error types by HTTP status. */
const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  502: "api_error",
  503: "overloaded_error",
};

/** Anthropic's error body: `{type: "error", error: {type, message}}`. */
export function anthropicErrorBody(status: number, message: string) {
  return { type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message } };
}
