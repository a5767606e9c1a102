import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client";
import type { ContentBlock, SamplingMessage, Tool } from "@modelcontextprotocol/client";
import type { ToolMode } from "../config/schema.js";
import { LlmError } from "../llm/errors.js";
import type { ChatModel, ChatRequest, ContentPart, Message, ToolCall, ToolChoice, ToolDefinition, Usage } from "../llm/types.js";
import { samplingRejected } from "../mcp/client-features.js";
import type { CreateMessageRequestParams, CreateMessageResult, CreateMessageResultWithTools, SamplingHandler } from "../mcp/types.js";
import { decideSampling, type Approval } from "./approval.js";
import { SamplingBudget, type SamplingLimits } from "./sampling-limits.js";
import { toolCallingFor } from "./tool-calling.js";
import { ToolModeSession, type ToolCallingMiddlewares } from "./tool-mode.js";

export interface SamplingOptions {
  approval: Approval;
  /** The model called `name` (a server's `sampling.model`, or one a hint picked); undefined: the default model. */
  model: (name: string | undefined) => Promise<ChatModel>;
  /** Per server: its own model and limits (the config's `sampling` key). */
  servers?: Readonly<Record<string, { sampling?: SamplingLimits & { model?: string } }>>;
  /** Model names a server's `modelPreferences.hints` may pick (a hint is a substring of the name). */
  knownModels?: readonly string[];
  /** How tools offered in a sampling request reach the model (default auto: native, prompt when refused). */
  toolMode?: ToolMode;
  toolCalling?: ToolCallingMiddlewares;
  /** The llm section's maxTokens: no sampling answer is asked to be longer. */
  maxTokens?: number;
  now?: () => number;
}

/** One message of a request shown for approval at most this long. */
const SHOWN_MESSAGE_CHARS = 500;

/**
 * Answers servers' `sampling/createMessage` with the host's own models: each request passes
 * the approval policy (and the person, when the policy says ask), the server's per-minute
 * limits, then goes to the server's model through the provider adapters, with the tools it
 * offers natively or in prompt mode. A refusal is the spec's user-rejected error.
 */
export function createSamplingHandler(options: SamplingOptions): SamplingHandler {
  const servers = options.servers ?? {};
  const budget = new SamplingBudget((server) => servers[server]?.sampling ?? {}, options.now);
  return async (asked, { server, signal }) => {
    // A server may ask for a billion tokens; it gets at most what its minute may spend, and llm.maxTokens.
    const request = { ...asked, maxTokens: Math.min(asked.maxTokens, budget.maxTokensPerRequest(server), options.maxTokens ?? Infinity) };
    const name = pickModel(request, servers[server]?.sampling?.model, options.knownModels ?? []);
    const model = await options.model(name);
    const outcome = await decideSampling(
      options.approval,
      {
        server,
        ...(request.systemPrompt !== undefined ? { systemPrompt: request.systemPrompt } : {}),
        messages: request.messages.map(describeMessage),
        maxTokens: request.maxTokens,
        tools: (request.tools ?? []).map((tool) => tool.name),
        model: model.modelId,
      },
      signal,
    );
    if (!outcome.run) {
      throw samplingRejected(
        outcome.asked
          ? `User rejected sampling request${outcome.reason ? `: ${outcome.reason}` : ""}`
          : "User rejected sampling request: the user's approval policy does not allow it and no one was there to ask",
      );
    }
    const ticket = budget.take(server, request.maxTokens);
    if ("refused" in ticket) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, ticket.refused);
    const reply = await sample(model, request, signal, options);
    ticket.settle(reply.usage?.totalTokens ?? request.maxTokens);
    return toResult(reply, model.modelId, request.tools !== undefined);
  };
}

/** The server's configured model, else the first known model a hint names, else the default. */
function pickModel(request: CreateMessageRequestParams, configured: string | undefined, known: readonly string[]): string | undefined {
  if (configured !== undefined) return configured;
  for (const hint of request.modelPreferences?.hints ?? []) {
    const wanted = hint.name?.toLowerCase();
    if (!wanted) continue;
    const match = known.find((name) => name.toLowerCase().includes(wanted));
    if (match) return match;
  }
  return undefined;
}

interface Reply {
  text: string;
  toolCalls: ToolCall[];
  stopReason: string;
  usage?: Usage;
}

async function sample(model: ChatModel, request: CreateMessageRequestParams, signal: AbortSignal, options: SamplingOptions): Promise<Reply> {
  const tools = request.tools?.map(toToolDefinition);
  const chat: ChatRequest = {
    messages: [...(request.systemPrompt ? [{ role: "system" as const, content: request.systemPrompt }] : []), ...toMessages(request.messages)],
    maxTokens: request.maxTokens,
    signal,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(tools?.length ? { tools, toolChoice: toToolChoice(request.toolChoice?.mode) } : {}),
  };
  const session = new ToolModeSession(model, options.toolMode ?? "auto", options.toolCalling ?? toolCallingFor());
  for (;;) {
    try {
      return await collect(tools?.length ? session.model : model, chat, request.stopSequences ?? []);
    } catch (error) {
      if (tools?.length && error instanceof LlmError && error.code === "tools-unsupported" && session.switchToPrompt()) continue;
      throw error;
    }
  }
}

/** Reads the stream to its end, or to the first stop sequence. */
async function collect(model: ChatModel, request: ChatRequest, stopSequences: readonly string[]): Promise<Reply> {
  let text = "";
  const toolCalls: ToolCall[] = [];
  let stopReason = "endTurn";
  let usage: Usage | undefined;
  for await (const event of model.stream(request)) {
    if (event.type === "text-delta") {
      text += event.text;
      const cut = firstStop(text, stopSequences);
      if (cut !== undefined) {
        text = text.slice(0, cut);
        stopReason = "stopSequence";
        break;
      }
    } else if (event.type === "tool-call") toolCalls.push(event.call);
    else if (event.type === "usage") usage = event.usage;
    else if (event.type === "finish") stopReason = event.reason === "length" ? "maxTokens" : event.reason === "tool-calls" ? "toolUse" : "endTurn";
  }
  if (toolCalls.length > 0) stopReason = "toolUse";
  return { text, toolCalls, stopReason, ...(usage ? { usage } : {}) };
}

function firstStop(text: string, stops: readonly string[]): number | undefined {
  let first: number | undefined;
  for (const stop of stops) {
    if (stop === "") continue;
    const at = text.indexOf(stop);
    if (at >= 0 && (first === undefined || at < first)) first = at;
  }
  return first;
}

function toResult(reply: Reply, model: string, withTools: boolean): CreateMessageResult | CreateMessageResultWithTools {
  if (!withTools) return { model, role: "assistant", stopReason: reply.stopReason, content: { type: "text", text: reply.text } };
  const content: CreateMessageResultWithTools["content"] = [
    ...(reply.text !== "" || reply.toolCalls.length === 0 ? [{ type: "text" as const, text: reply.text }] : []),
    ...reply.toolCalls.map((call) => ({ type: "tool_use" as const, id: call.id, name: call.name, input: parseInput(call.arguments) })),
  ];
  return { model, role: "assistant", stopReason: reply.stopReason, content };
}

function parseInput(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text === "" ? "{}" : text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { arguments: text };
  }
}

function toToolDefinition(tool: Tool): ToolDefinition {
  return { name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), parameters: tool.inputSchema };
}

function toToolChoice(mode: "auto" | "required" | "none" | undefined): ToolChoice {
  return mode ?? "auto";
}

type Block = SamplingMessage["content"] extends infer C ? (C extends readonly (infer B)[] ? B : C) : never;

function blocks(message: SamplingMessage): Block[] {
  return Array.isArray(message.content) ? message.content : [message.content as Block];
}

/** MCP sampling messages as neutral messages: tool uses become calls, tool results tool messages. */
export function toMessages(messages: readonly SamplingMessage[]): Message[] {
  const out: Message[] = [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    const parts: ContentPart[] = [];
    const calls: ToolCall[] = [];
    for (const block of blocks(message)) {
      if (block.type === "tool_use") {
        toolNames.set(block.id, block.name);
        calls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
      } else if (block.type === "tool_result") {
        out.push({
          role: "tool",
          toolCallId: block.toolUseId,
          name: toolNames.get(block.toolUseId) ?? "tool",
          content: block.content.flatMap(contentPart),
          ...(block.isError ? { isError: true } : {}),
        });
      } else parts.push(...contentPart(block));
    }
    if (message.role === "assistant") {
      if (parts.length > 0 || calls.length > 0) {
        out.push({ role: "assistant", content: parts.map((p) => (p.type === "text" ? p.text : "")).join(""), ...(calls.length ? { toolCalls: calls } : {}) });
      }
    } else if (parts.length > 0) {
      out.push({ role: "user", content: parts.every((p) => p.type === "text") ? parts.map((p) => p.text).join("\n") : parts });
    }
  }
  return out;
}

/** Text, images and audio pass (a provider that cannot hear says so); links and resources are named in text. */
function contentPart(block: Block | ContentBlock): ContentPart[] {
  switch (block.type) {
    case "text":
      return [{ type: "text", text: block.text }];
    case "image":
      return [{ type: "image", data: block.data, mimeType: block.mimeType }];
    case "audio":
      return [{ type: "audio", data: block.data, mimeType: block.mimeType }];
    case "resource_link":
      return [{ type: "text", text: `[resource ${block.uri}]` }];
    case "resource":
      return [{ type: "text", text: "text" in block.resource ? block.resource.text : `[resource ${block.resource.uri}]` }];
    default:
      return [];
  }
}

function describeMessage(message: SamplingMessage): string {
  const text = blocks(message)
    .map((block) => {
      if (block.type === "text") return block.text;
      if (block.type === "tool_use") return `[calls ${block.name}]`;
      if (block.type === "tool_result") return "[a tool result]";
      return `[${block.type}]`;
    })
    .join(" ");
  const line = `${message.role}: ${text}`.replace(/\s+/g, " ");
  return line.length > SHOWN_MESSAGE_CHARS ? `${line.slice(0, SHOWN_MESSAGE_CHARS)}…` : line;
}
