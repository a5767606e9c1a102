/**
 * Tool calling for models that cannot take a `tools` field, as ChatModel wrappers:
 * prompt mode (tools described in the system prompt, calls parsed from the streamed text)
 * and the native-mode fallback (a reply that writes its calls as text still yields calls).
 */
import { newCallId } from "../llm/call-id.js";
import type { ChatModel, ChatRequest, FinishReason, StreamEvent, ToolCall } from "../llm/types.js";
import { createToolCallParser, type ToolCallParser, type ToolCallParserEvent } from "./parser.js";
import { renderPromptMessages } from "./prompt.js";
import { promptFamily, type PromptFormat } from "./prompt-families.js";

export interface PromptToolCallingOptions {
  /**
   * The model's template opens a reasoning block in the prompt (QwQ, DeepSeek-R1, Qwen3
   * thinking models). Unset, it is learnt: after a reply that closes a block it never opened,
   * the model's later replies are read as starting in reasoning.
   */
  startInReasoning?: boolean;
  /** Prompt mode's call format; "auto" (the default) goes by the model's name. */
  promptFormat?: PromptFormat | "auto";
}

/** Whether the model's replies start inside reasoning: as configured, or learnt from its replies. */
class ReasoningStart {
  private learnt = false;
  constructor(private readonly configured: boolean | undefined) {}

  get value(): boolean {
    return this.configured ?? this.learnt;
  }

  learnFrom(parser: ToolCallParser): void {
    if (parser.closedUnopenedReasoning) this.learnt = true;
  }
}

function toToolCall(event: Extract<ToolCallParserEvent, { type: "tool-call" }>): ToolCall {
  return { id: newCallId(), name: event.name, arguments: JSON.stringify(event.arguments) };
}

/**
 * Runs a model's stream through the parser. Text and reasoning go out as they come; calls
 * go out at once, or, when `deferCalls`, only at the end and only if the model made no
 * native call (a model that made both meant the native ones).
 */
async function* parseTextStream(
  source: AsyncIterable<StreamEvent>,
  parser: ToolCallParser,
  deferCalls: boolean,
  reasoningStart: ReasoningStart,
): AsyncGenerator<StreamEvent> {
  const deferred: ToolCall[] = [];
  let parsedCalls = 0;
  let nativeCalls = 0;
  let finish: FinishReason | undefined;
  function* translate(events: ToolCallParserEvent[]): Generator<StreamEvent> {
    for (const e of events) {
      if (e.type === "text") yield { type: "text-delta", text: e.text };
      else if (e.type === "reasoning") yield { type: "reasoning-delta", text: e.text };
      else if (deferCalls) deferred.push(toToolCall(e));
      else {
        parsedCalls++;
        yield { type: "tool-call", call: toToolCall(e) };
      }
    }
  }
  for await (const event of source) {
    if (event.type === "text-delta") yield* translate(parser.push(event.text));
    // The finish event waits until the parser has given back what it held.
    else if (event.type === "finish") finish = event.reason;
    else {
      if (event.type === "tool-call") nativeCalls++;
      yield event;
    }
  }
  yield* translate(parser.end());
  reasoningStart.learnFrom(parser);
  if (nativeCalls === 0) {
    for (const call of deferred) yield { type: "tool-call", call };
    parsedCalls += deferred.length;
  }
  yield { type: "finish", reason: parsedCalls > 0 ? "tool-calls" : (finish ?? "stop") };
}

/**
 * Prompt mode: the request's tools are described in the system prompt and the request goes
 * out without `tools`; the streamed text becomes text, reasoning and tool-call events.
 */
export function withPromptToolCalling(model: ChatModel, options: PromptToolCallingOptions = {}): ChatModel {
  const reasoningStart = new ReasoningStart(options.startInReasoning);
  const family = promptFamily(model.modelId, options.promptFormat);
  return {
    provider: model.provider,
    modelId: model.modelId,
    stream(request: ChatRequest): AsyncIterable<StreamEvent> {
      const { tools = [], toolChoice, ...rest } = request;
      const offered = toolChoice === "none" ? [] : tools;
      const messages = renderPromptMessages(request.messages, offered, toolChoice, family);
      const source = model.stream({ ...rest, messages });
      if (offered.length === 0) return source;
      const parser = createToolCallParser({ tools: offered, startInReasoning: reasoningStart.value });
      return parseTextStream(source, parser, false, reasoningStart);
    },
  };
}

/** Native mode with a safety net: calls a model wrote as text, and no native call, become tool calls. */
export function withTextToolCallFallback(model: ChatModel, options: PromptToolCallingOptions = {}): ChatModel {
  const reasoningStart = new ReasoningStart(options.startInReasoning);
  return {
    provider: model.provider,
    modelId: model.modelId,
    stream(request: ChatRequest): AsyncIterable<StreamEvent> {
      const tools = request.tools ?? [];
      if (tools.length === 0 || request.toolChoice === "none") return model.stream(request);
      const parser = createToolCallParser({ tools, startInReasoning: reasoningStart.value });
      return parseTextStream(model.stream(request), parser, true, reasoningStart);
    },
  };
}
