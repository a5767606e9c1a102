import type { ServerResponse } from "node:http";
import type { AgentEvent } from "../../agent/events.js";
import type { TokenLogprob, Usage } from "../../llm/types.js";
import { callFields, ChatCompletionRequestSchema, ChunkWriter, completionId, completionObject, toAgentRequest, usesLegacyFunctions, WireError, type Answer } from "../openai-wire.js";
import { logTurn, SHADOWED_HEADER, type CompletionContext } from "../completion-context.js";
import { HttpError, sendJson, turnFailure } from "../http.js";
import { ThinkingBlocks } from "../thinking-blocks.js";

/**
 * One chat completion: the whole tool loop runs inside, and the client gets one assistant
 * answer. Streamed, the text of every round and the reasoning arrive as they are made;
 * no intermediate round shows as `tool_calls` or `finish_reason: "tool_calls"`. Only calls of
 * the client's own tools do, as OpenAI's API sends them.
 */
export async function handleChatCompletion(context: CompletionContext): Promise<void> {
  const parsed = ChatCompletionRequestSchema.safeParse(context.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "body";
    throw new HttpError(400, `${where}: ${issue?.message ?? "invalid request"}`, "invalid_request_error");
  }
  const request = parsed.data;
  let agentRequest;
  try {
    agentRequest = toAgentRequest(request);
  } catch (error) {
    if (error instanceof WireError) throw new HttpError(400, error.message, "invalid_request_error");
    throw error;
  }
  const model = await context.model(request.model);

  const shadowed = context.runner.shadowed(agentRequest);
  if (shadowed.length > 0) {
    // The client's tools win; it is told which of ours it hid, and so is the operator.
    context.res.setHeader(SHADOWED_HEADER, shadowed.join(","));
    context.log.log("warn", "client tools shadow MCP tools", { requestId: context.requestId, tools: shadowed });
  }

  const activity = context.toolActivityHeader || request.toolbridge?.tool_activity === true;
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  const chunks = new ChunkWriter(id, request.model, created);
  const { res } = context;
  const stream = request.stream === true;
  const count = request.n ?? 1;
  /**
   * The stream's head and each choice's first chunk go out with the first thing there is to say
   * (or once the loop turns to a tool), not before the model is asked: written first, they cost
   * the request to the model a socket write and wake the client before it is sent (measured:
   * 0.1 ms of each streamed turn's added latency).
   */
  let started = !stream;
  const start = () => {
    if (started) return;
    started = true;
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" });
    for (let index = 0; index < count; index++) writeEvent(res, chunks.delta({ role: "assistant", content: "" }, null, index));
  };
  // `n` choices are n tool loops of their own, run side by side; streamed, their chunks interleave by index.
  const choices = await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const answer = new AnswerBuilder(activity);
      const turn = await context.runner.run(agentRequest, {
        model,
        signal: context.signal,
        ...(request.temperature != null ? { temperature: request.temperature } : {}),
        ...((request.max_completion_tokens ?? request.max_tokens) != null ? { maxTokens: (request.max_completion_tokens ?? request.max_tokens) as number } : {}),
        onEvent: (event) => {
          if (event.type !== "model-request") start();
          if (event.type === "logprobs") {
            answer.logprobs.push(...event.content);
            if (stream && !res.writableEnded) writeEvent(res, chunks.delta({}, null, index, event.content));
            return;
          }
          const delta = answer.add(event);
          if (stream && delta && !res.writableEnded) writeEvent(res, chunks.delta(delta, null, index));
        },
      });
      logTurn(context, turn);
      return { answer, turn };
    }),
  );
  if (choices.some(({ turn }) => turn.status === "aborted") || res.writableEnded) {
    res.end();
    return;
  }
  const failed = choices.find(({ turn }) => turn.status === "failed")?.turn;
  const failure = failed ? (failed.error ?? { code: "internal", message: "the turn failed" }) : undefined;
  const usage = sumUsage(choices.map(({ turn }) => turn.usage));
  const legacy = usesLegacyFunctions(request);
  const answers = choices.map(({ answer, turn }): Answer => {
    const toolCalls = turn.clientToolCalls ?? [];
    const called = legacy ? "function_call" : "tool_calls";
    return { content: answer.content, reasoning: answer.reasoning, thinkingBlocks: answer.thinking.blocks, logprobs: answer.logprobs, toolCalls, finishReason: toolCalls.length > 0 ? called : turn.finishReason === "length" ? "length" : "stop", usage: turn.usage };
  });
  if (!stream) {
    if (failure) throw turnFailure(failure);
    sendJson(res, 200, completionObject(id, request.model, created, answers, usage));
    return;
  }
  start();
  if (failure) {
    // What OpenAI-compatible servers send when a stream fails after it started.
    writeEvent(res, { error: { message: `Upstream model failed: ${failure.message}`, type: "upstream_error", param: null, code: failure.code } });
  } else {
    answers.forEach((answer, index) => {
      if (answer.toolCalls.length > 0) writeEvent(res, chunks.delta(callFields(answer, true), null, index));
      writeEvent(res, chunks.delta({}, answer.finishReason, index));
    });
    if (request.stream_options?.include_usage) writeEvent(res, chunks.usage(usage));
  }
  res.end("data: [DONE]\n\n");
}

function sumUsage(all: readonly Usage[]): Usage {
  return all.reduce((sum, usage) => ({
    inputTokens: sum.inputTokens + usage.inputTokens,
    outputTokens: sum.outputTokens + usage.outputTokens,
    totalTokens: sum.totalTokens + usage.totalTokens,
  }));
}

function writeEvent(res: ServerResponse, data: unknown): void {
  res.write(`data: ${JSON.stringify(data)}\n\n`);
}

/**
 * The answer as the client sees it, built from the agent's events: the text of every round
 * (a blank line between rounds), the reasoning, and with `activity` one reasoning line per
 * tool call and one per result. Streamed and whole answers come out the same.
 */
export class AnswerBuilder {
  content = "";
  reasoning = "";
  /** The tokens' log probabilities, every round's, when the request asked for them. */
  readonly logprobs: TokenLogprob[] = [];
  /** Streamed, each block goes out whole once signed (or redacted), after its reasoning_content deltas. */
  readonly thinking = new ThinkingBlocks();
  private separate = false;

  constructor(private readonly activity: boolean) {}

  /** The chunk delta the event makes, if any. */
  add(event: AgentEvent): Record<string, unknown> | undefined {
    const block = this.thinking.add(event);
    if (block) return { thinking_blocks: [block] };
    switch (event.type) {
      case "model-request":
        this.separate = this.content !== "" && !this.content.endsWith("\n\n");
        return undefined;
      case "text-delta": {
        const text = this.separate ? `\n\n${event.text}` : event.text;
        this.separate = false;
        this.content += text;
        return { content: text };
      }
      case "reasoning-delta":
        return this.think(event.text);
      case "tool-call-started":
        return this.activity ? this.think(`\n[tool] ${event.name} ${typeof event.arguments === "string" ? event.arguments : JSON.stringify(event.arguments)}\n`) : undefined;
      case "tool-call-finished":
        return this.activity ? this.think(`[tool] ${event.name} ${event.outcome}: ${event.summary}\n`) : undefined;
      default:
        return undefined;
    }
  }

  private think(text: string): Record<string, string> {
    this.reasoning += text;
    return { reasoning_content: text };
  }
}
