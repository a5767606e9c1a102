import type { ServerResponse } from "node:http";
import type { AgentEvent, TurnResult } from "../../agent/events.js";
import { estimateToolTokens } from "../../agent/tool-offer.js";
import { toToolDefinition } from "../../agent/tool-host.js";
import { INTERLEAVED_THINKING_BETA } from "../../llm/anthropic.js";
import type { Message, ToolCall } from "../../llm/types.js";
import {
  anthropicErrorBody,
  CountTokensRequestSchema,
  messageId,
  messageObject,
  messageStart,
  MessagesRequestSchema,
  toAgentRequest,
  toolInput,
  wireUsage,
  type ContentBlock,
  type StopReason,
} from "./anthropic-wire.js";
import { logTurn, SHADOWED_HEADER, type CompletionContext } from "../completion-context.js";
import { HttpError, parseBody, sendJson, turnFailure } from "../http.js";
import { WireError, type AgentRequest } from "../openai-wire.js";
import { signedCallId } from "../signed-call-id.js";

/** Anthropic streams send a ping now and then, so proxies keep a quiet stream (tools running) open. */
const PING_INTERVAL_MS = 10_000;

/**
 * One `POST /v1/messages`: the whole tool loop runs inside, as for chat completions; only calls
 * of the client's own tools come back, as `tool_use` blocks. Streamed, every round's text and
 * thinking arrive as they are made, each round in blocks of its own.
 */
export async function handleMessages(context: CompletionContext): Promise<void> {
  const request = parseBody(MessagesRequestSchema, context.body);
  const agentRequest = agentRequestOf(request);
  // A client asking for interleaved thinking gets it from an Anthropic model (the beta goes on); other models ignore it.
  const thinking = agentRequest.generation?.thinking;
  if (thinking && context.anthropicBetas.includes(INTERLEAVED_THINKING_BETA)) thinking.interleaved = true;
  const model = await context.model(request.model);
  const shadowed = context.runner.shadowed(agentRequest);
  if (shadowed.length > 0) {
    context.res.setHeader(SHADOWED_HEADER, shadowed.join(","));
    context.log.log("warn", "client tools shadow MCP tools", { requestId: context.requestId, tools: shadowed });
  }
  const { res } = context;
  const id = messageId();
  const stream = request.stream === true;
  const clientTools = new Set(agentRequest.clientTools.map((tool) => tool.name));
  /**
   * The stream's head, `message_start` and a ping go out with the first block, or with the first
   * ping if the loop has said nothing by then; not before the model is asked (see chat-completions.ts).
   */
  let started = !stream;
  const start = () => {
    if (started) return;
    started = true;
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" });
    writeEvent(res, "message_start", messageStart(id, request.model));
    writeEvent(res, "ping", { type: "ping" });
  };
  const blocks = new BlockWriter(
    clientTools,
    stream
      ? (name, data) => {
          start();
          writeEvent(res, name, data);
        }
      : undefined,
  );
  const ping = stream ? setInterval(() => (started ? writeEvent(res, "ping", { type: "ping" }) : start()), PING_INTERVAL_MS) : undefined;
  let turn: TurnResult;
  try {
    turn = await context.runner.run(agentRequest, {
      model,
      signal: context.signal,
      maxTokens: request.max_tokens,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      onEvent: (event) => {
        if (!res.writableEnded) blocks.add(event);
      },
    });
  } finally {
    clearInterval(ping);
  }
  logTurn(context, turn, "message");
  if (turn.status === "aborted" || res.writableEnded) {
    res.end();
    return;
  }
  if (turn.status === "failed") {
    const failure = turnFailure(turn.error);
    if (!stream) throw failure;
    start();
    writeEvent(res, "error", anthropicErrorBody(failure.status, failure.message));
    res.end();
    return;
  }
  const calls = turn.clientToolCalls ?? [];
  blocks.finish(calls);
  const stopSequence = calls.length === 0 && turn.finishReason === "stop" ? (turn.stopSequence ?? null) : null;
  const stopReason: StopReason = calls.length > 0 ? "tool_use" : turn.finishReason === "length" ? "max_tokens" : stopSequence !== null ? "stop_sequence" : "end_turn";
  if (!stream) {
    sendJson(res, 200, messageObject(id, request.model, blocks.content, stopReason, turn.usage, stopSequence));
    return;
  }
  start();
  writeEvent(res, "message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: stopSequence }, usage: wireUsage(turn.usage) });
  writeEvent(res, "message_stop", { type: "message_stop" });
  res.end();
}

/** Says how `count_tokens` counted: `exact` (the upstream's tokenizer) or `estimate`. */
export const TOKEN_COUNT_HEADER = "x-toolbridge-token-count";

/**
 * `POST /v1/messages/count_tokens`: the prompt the turn's first request would send (system,
 * conversation, the hub's tools and the client's), counted by the upstream with the model's
 * own tokenizer and chat template (vLLM's /tokenize); where the upstream cannot count,
 * estimated at about four characters a token.
 */
export async function handleCountTokens(context: Pick<CompletionContext, "body" | "res" | "runner" | "model" | "signal">): Promise<void> {
  const request = parseBody(CountTokensRequestSchema, context.body);
  const agentRequest = agentRequestOf(request);
  const model = await context.model(request.model);
  const tools = [...context.runner.offered().map(toToolDefinition), ...agentRequest.clientTools];
  const messages: Message[] = [
    ...(agentRequest.system !== "" ? [{ role: "system" as const, content: agentRequest.system }] : []),
    ...agentRequest.history,
    ...(agentRequest.input !== null ? [{ role: "user" as const, content: agentRequest.input }] : []),
  ];
  const exact = await model.countTokens?.({ messages, ...(tools.length > 0 ? { tools } : {}), signal: context.signal });
  context.res.setHeader(TOKEN_COUNT_HEADER, exact === undefined ? "estimate" : "exact");
  sendJson(context.res, 200, { input_tokens: exact ?? Math.ceil(JSON.stringify(messages).length / 4) + estimateToolTokens(tools) });
}

function agentRequestOf(request: Parameters<typeof toAgentRequest>[0]): AgentRequest {
  try {
    return toAgentRequest(request);
  } catch (error) {
    if (error instanceof WireError) throw new HttpError(400, error.message, "invalid_request_error");
    throw error;
  }
}

function writeEvent(res: ServerResponse, name: string, data: unknown): void {
  if (!res.writableEnded) res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}

/**
 * The answer's content blocks, built from the agent's events: each round's thinking and text
 * in blocks of their own, redacted thinking as it came, and the client's tool calls in their
 * place among them. With a writer, every block is also streamed as it grows
 * (content_block_start, _delta, _stop).
 */
export class BlockWriter {
  readonly content: ContentBlock[] = [];
  private open: ContentBlock | undefined;
  /** The ids of the client's tool calls already written in place. */
  private readonly placed = new Set<string>();

  constructor(
    private readonly clientTools: ReadonlySet<string>,
    private readonly write?: (name: string, data: unknown) => void,
  ) {}

  add(event: AgentEvent): void {
    switch (event.type) {
      case "model-request":
        this.close();
        return;
      case "text-delta": {
        const block = this.current("text");
        block.text += event.text;
        this.delta({ type: "text_delta", text: event.text });
        return;
      }
      case "reasoning-delta": {
        const block = this.current("thinking");
        block.thinking += event.text;
        this.delta({ type: "thinking_delta", thinking: event.text });
        return;
      }
      case "reasoning-signature": {
        // The signature ends the thinking it signs; the client gives both back with the tool calls that follow.
        const block = this.current("thinking");
        block.signature = event.signature;
        this.delta({ type: "signature_delta", signature: event.signature });
        this.close();
        return;
      }
      case "reasoning-redacted":
        this.close();
        this.start({ type: "redacted_thinking", data: event.data });
        this.close();
        return;
      case "tool-call-written":
        if (this.clientTools.has(event.call.name) && event.call.id !== "") {
          this.toolUse(event.call);
          this.placed.add(event.call.id);
        }
        return;
      default:
        return;
    }
  }

  /** Closes the last block and adds a tool_use block for each call of the client's tools not yet in place. */
  finish(calls: readonly ToolCall[]): void {
    this.close();
    for (const call of calls) if (!this.placed.has(call.id)) this.toolUse(call);
  }

  private toolUse(call: ToolCall): void {
    this.close();
    const input = toolInput(call);
    this.start({ type: "tool_use", id: signedCallId(call), name: call.name, input });
    this.delta({ type: "input_json_delta", partial_json: JSON.stringify(input) });
    this.close();
  }

  private current<T extends "text" | "thinking">(type: T): Extract<ContentBlock, { type: T }> {
    if (this.open?.type !== type) {
      this.close();
      this.start(type === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" });
    }
    return this.open as Extract<ContentBlock, { type: T }>;
  }

  private start(block: ContentBlock): void {
    // A tool_use block opens empty; its input follows as JSON deltas.
    const opened = block.type === "tool_use" ? { ...block, input: {} } : { ...block };
    this.write?.("content_block_start", { type: "content_block_start", index: this.content.length, content_block: opened });
    this.content.push(block);
    this.open = block;
  }

  private delta(delta: Record<string, string>): void {
    this.write?.("content_block_delta", { type: "content_block_delta", index: this.content.length - 1, delta });
  }

  private close(): void {
    if (!this.open) return;
    this.write?.("content_block_stop", { type: "content_block_stop", index: this.content.length - 1 });
    this.open = undefined;
  }
}
