import type { AgentEvent, TurnResult } from "../../agent/events.js";
import type { ContentPart, Message } from "../../llm/types.js";
import { terminalSafeJson } from "../render/terminal-text.js";

/** What the first line (`system`/`init`) says about the session. */
export interface StreamJsonInit {
  model: string;
  provider: string;
  toolMode: string;
  tools: readonly string[];
  servers: readonly { name: string; status: string }[];
}

/**
 * `run --output-format stream-json`: one JSON object per line as the turn goes, in the shape
 * `claude -p --output-format stream-json` gives, so the tools people already wrote for it
 * read ours: a `system`/`init` line; `stream_event` lines carrying each text or thinking
 * delta as it arrives; an `assistant` line per model reply (text and `tool_use` blocks); a
 * `user` line per tool result (`tool_result` blocks); `system`/`notice` lines (retries, a
 * switch to prompt-based tool calling); and a last `result` line.
 */
export class StreamJsonWriter {
  // Conversation messages already written; the turn's own prompt is never echoed.
  private seen: number;

  constructor(
    private readonly write: (line: string) => void,
    private readonly messages: () => readonly Message[],
    init: StreamJsonInit,
  ) {
    this.seen = messages().length;
    this.line({
      type: "system",
      subtype: "init",
      model: init.model,
      provider: init.provider,
      tool_mode: init.toolMode,
      tools: init.tools,
      mcp_servers: init.servers.map(({ name, status }) => ({ name, status })),
    });
  }

  handle(event: AgentEvent): void {
    switch (event.type) {
      case "text-delta":
        return this.line({ type: "stream_event", event: { type: "content_block_delta", delta: { type: "text_delta", text: event.text } } });
      case "reasoning-delta":
        return this.line({ type: "stream_event", event: { type: "content_block_delta", delta: { type: "thinking_delta", thinking: event.text } } });
      case "notice":
        return this.line({ type: "system", subtype: "notice", code: event.code, message: event.message });
      // The conversation grows as the turn goes: a reply is in it when its calls start, the results when the next request goes out.
      case "tool-call-started":
      case "model-request":
        return this.flush();
      case "turn-end":
        this.flush();
        return this.line(resultLine(event.turn));
      default:
        return;
    }
  }

  private flush(): void {
    const messages = this.messages();
    for (; this.seen < messages.length; this.seen++) {
      const message = messages[this.seen]!;
      if (message.role === "assistant") this.line({ type: "assistant", message: assistantMessage(message) });
      else if (message.role === "tool") {
        const block = { type: "tool_result", tool_use_id: message.toolCallId, content: toolContent(message.content), is_error: message.isError === true };
        this.line({ type: "user", message: { role: "user", content: [block] } });
      }
    }
  }

  private line(value: unknown): void {
    this.write(`${terminalSafeJson(value)}\n`);
  }
}

function assistantMessage(message: Extract<Message, { role: "assistant" }>) {
  const content: unknown[] = [];
  if (message.reasoning) content.push({ type: "thinking", thinking: message.reasoning });
  if (message.content !== "") content.push({ type: "text", text: message.content });
  for (const call of message.toolCalls ?? []) content.push({ type: "tool_use", id: call.id, name: call.name, input: parsedOrRaw(call.arguments) });
  return { role: "assistant", content };
}

function parsedOrRaw(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toolContent(content: string | ContentPart[]): unknown {
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part : part.type === "image-url" ? { type: "image", source: { type: "url", url: part.url } } : { type: part.type, source: { type: "base64", media_type: part.mimeType, data: part.data } }));
}

function resultLine(turn: TurnResult) {
  const failed = turn.status !== "completed";
  return {
    type: "result",
    subtype: failed ? "error_during_execution" : "success",
    is_error: failed,
    status: turn.status,
    stop_reason: turn.stopReason,
    limit_reached: turn.limitReached,
    duration_ms: Math.round(turn.durationMs),
    num_turns: turn.iterations,
    result: turn.text,
    usage: { input_tokens: turn.usage.inputTokens, output_tokens: turn.usage.outputTokens },
    ...(turn.error ? { error: turn.error } : {}),
  };
}
