import type { ToolMode } from "../config/schema.js";
import { LlmError } from "../llm/errors.js";
import { partText } from "../llm/content-part.js";
import type { ChatModel, ChatRequest, ContentPart, FinishReason, GenerationSettings, Message, ReplyBlock, ResponseFormat, StreamEvent, ToolCall, ToolChoice, ToolDefinition, Usage } from "../llm/types.js";
import { isSealed } from "../llm/reply-block.js";
import type { HubTool } from "../mcp/types.js";
import { ApprovalPolicy, type Approval } from "./approval.js";
import type { Hooks, HookVerdict } from "./hooks.js";
import { compactConversation, type Compaction, type CompactOptions } from "./compaction.js";
import type { AgentEvent, StopReason, ToolCallRecord, TurnError, TurnResult } from "./events.js";
import { RepeatGuard, MAX_IDENTICAL_CALLS } from "./repeat-guard.js";
import { matchesFormat, parseToolArguments, type ParsedToolCall } from "./tool-arguments.js";
import { ToolCatalog, type ToolFilter, type ToolHost } from "./tool-host.js";
import { SKILL_TOOL_NAME, withSkills, type SkillHost } from "./skills.js";
import { ToolModeSession, type ProbedMode, type ToolCallingMiddlewares } from "./tool-mode.js";
import { DEFAULT_MAX_TOOL_RESULT_CHARS, capToolContent } from "./tool-result.js";
import { ToolOffer, runWithToolSearch, type ToolSearchSettings, type TurnOffer } from "./tool-offer.js";
import { runToolCalls, type SkippedCall } from "./tool-runner.js";
import { toolCallingFor } from "./tool-calling.js";
import type { PromptFormat } from "../toolcall/prompt-families.js";

export const DEFAULT_MAX_ITERATIONS = 5;

export interface AgentOptions {
  model: ChatModel;
  tools: ToolHost;
  systemPrompt?: string;
  /** Model requests with tools per turn before the agent asks for an answer without them. */
  maxIterations?: number;
  /**
   * Tool calls run per turn at most (the Responses API's `max_tool_calls`): calls past it are
   * not run, and the model is then asked for an answer without tools. Absent: no limit.
   */
  maxToolCalls?: number;
  /** Tool result text longer than this is cut before the model sees it (the turn keeps it whole). */
  maxToolResultChars?: number;
  toolChoice?: ToolChoice;
  temperature?: number;
  maxTokens?: number;
  /** Sent with every model request as they are. */
  generation?: GenerationSettings;
  /**
   * The form the final answer must take. Requests that offer tools go without it (a
   * constrained reply could not call a tool); their text is held back, and shown as
   * reasoning when the reply calls tools. A final reply that does not match is asked for
   * again, without tools and with the format.
   */
  responseFormat?: ResponseFormat;
  toolMode?: ToolMode;
  /** In tool mode "auto": the mode a probe of this model found best (see probeToolModes), started in. */
  probedMode?: ProbedMode;
  /** Which of the host's tools are offered (e.g. the config's `toolAllowList`); absent means all. */
  toolFilter?: ToolFilter;
  /** Timeout of one tool call, passed to the host. */
  toolTimeoutMs?: number;
  /** A conversation to continue (e.g. a loaded transcript); system messages are not expected here. */
  messages?: readonly Message[];
  /**
   * Who may run which tool, and who is asked when the policy says ask. Without one, every
   * call is refused: a library user states the policy in code (`{policy: new ApprovalPolicy({mode: "all"})}`).
   */
  approval?: Approval;
  /** How prompt mode and dual mode wrap the model; the toolcall module's middlewares by default. */
  toolCalling?: ToolCallingMiddlewares;
  /** The host's lifetime: once aborted (the program is stopping), every turn ends as aborted, tool calls cancelled. */
  signal?: AbortSignal;
  /** Prompt mode's call format; by default the one the model's name says. */
  promptFormat?: PromptFormat | "auto";
  /** Tool search instead of every definition when there are many tools; "auto" over 40 tools by default. */
  toolSearch?: ToolSearchSettings;
  /**
   * Tools someone else runs (a gateway's client): offered with the host's, and a hub tool
   * of the same name is not offered. A reply calling one ends the turn with `clientToolCalls`.
   */
  clientTools?: readonly ToolDefinition[];
  /**
   * Servers' skills (SEP-2640), offered through the built-in `load_skill` tool: its description
   * lists each skill's summary, and a call loads one, approved as a read of its server.
   */
  skills?: SkillHost;
  /**
   * The session's hooks (see hooks.ts): SessionStart before the first turn of a new
   * conversation, UserPromptSubmit before each prompt, PreToolUse and PostToolUse around each
   * call, Stop when the model answers.
   */
  hooks?: Hooks;
}

export interface SendOptions {
  signal?: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
}

interface Reply {
  text: string;
  reasoning: string;
  /** The reply block by block, as it streamed (see ReplyBlock). */
  blocks: ReplyBlock[];
  toolCalls: ToolCall[];
  finish?: FinishReason;
  stopSequence?: string;
}

const LIMIT_REACHED = "You have reached the limit of tool calls for this question. Do not call any more tools: answer the question now from the tool results you already have, and say if something is still unknown.";

const ANSWER_NOW: Record<"max-iterations" | "max-tool-calls" | "repeated-call", string> = {
  "max-iterations": LIMIT_REACHED,
  "max-tool-calls": LIMIT_REACHED,
  "repeated-call": `You called the same tool with the same arguments ${MAX_IDENTICAL_CALLS} times in a row. Do not call any more tools: answer the question now from the tool results you already have, and say if something is still unknown.`,
};

const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/**
 * The agentic loop: the user's message goes to the model with the tools; the calls it asks
 * for run (concurrently, results in its order); the results go back; until it answers in
 * text or a limit is reached. The conversation is kept across turns.
 */
export class Agent {
  private conversation: Message[];
  private readonly catalog: ToolCatalog;
  private readonly toolOffer: ToolOffer;
  private readonly session: ToolModeSession;
  private readonly maxIterations: number;
  private readonly maxToolResultChars: number;
  private readonly approval: Approval;
  // Tool messages are kept whole in the conversation; this is the capped view the model gets.
  private readonly cappedViews = new WeakMap<Message, Message>();
  private running = false;
  private readonly clientToolNames: ReadonlySet<string>;
  private readonly host: ToolHost;
  // SessionStart runs once, before the first turn, and only for a conversation that starts empty.
  private sessionStarting: boolean;

  constructor(private readonly options: AgentOptions) {
    this.conversation = [...(options.messages ?? [])];
    this.sessionStarting = this.conversation.length === 0;
    this.host = options.skills ? withSkills(options.tools, options.skills) : options.tools;
    this.catalog = new ToolCatalog(this.host, options.toolFilter);
    const search = options.toolSearch ?? { mode: "auto" };
    // Skills are offered whether or not tool search hides the other tools.
    this.toolOffer = new ToolOffer(options.skills ? { ...search, alwaysLoaded: [...(search.alwaysLoaded ?? []), SKILL_TOOL_NAME] } : search);
    this.session = new ToolModeSession(options.model, options.toolMode ?? "auto", options.toolCalling ?? toolCallingFor(options.promptFormat), options.probedMode);
    this.maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    this.maxToolResultChars = options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS;
    this.approval = options.approval ?? { policy: new ApprovalPolicy() };
    this.clientToolNames = new Set((options.clientTools ?? []).map((tool) => tool.name));
  }

  /** The conversation so far, without the system prompt. */
  get messages(): readonly Message[] {
    return this.conversation;
  }

  /** The model as configured (before any tool-calling wrapper). */
  get model(): ChatModel {
    return this.options.model;
  }

  get toolMode(): "native" | "prompt" {
    return this.session.effectiveMode;
  }

  get systemPrompt(): string | undefined {
    return this.options.systemPrompt;
  }

  /** The tools the model is offered now (after the allow-list). */
  tools(): readonly HubTool[] {
    this.catalog.refresh();
    return this.catalog.tools;
  }

  clear(): void {
    this.replaceMessages([]);
  }

  replaceMessages(messages: readonly Message[]): void {
    if (this.running) throw new Error("Cannot replace the conversation while a turn is running.");
    this.conversation = messages.filter((message) => message.role !== "system");
  }

  /**
   * Replaces the conversation by the model's summary of it (see compaction.ts), to continue
   * from. Rejects when the model cannot give one; the conversation is then kept as it was.
   */
  async compact(options: CompactOptions = {}): Promise<Compaction> {
    if (this.running) throw new Error("Cannot compact the conversation while a turn is running.");
    this.running = true;
    const signal = this.withLifetime(options.signal);
    try {
      const compaction = await compactConversation(this.options.model, this.conversation, { ...options, ...(signal ? { signal } : {}) });
      this.conversation = [...compaction.messages];
      return compaction;
    } finally {
      this.running = false;
    }
  }

  /**
   * Runs one turn. Never rejects for model or tool failures: the result says how the turn ended.
   * `null` adds no user message: the conversation goes on from where it is (say, after results of client tools).
   */
  async send(input: string | ContentPart[] | null, options: SendOptions = {}): Promise<TurnResult> {
    if (this.running) throw new Error("A turn is already running; wait for it or cancel it first.");
    this.running = true;
    const signal = this.withLifetime(options.signal);
    try {
      return await this.runTurn(input, signal ? { ...options, signal } : options);
    } finally {
      this.running = false;
    }
  }

  /** The caller's signal joined to the host's lifetime. */
  private withLifetime(signal: AbortSignal | undefined): AbortSignal | undefined {
    const lifetime = this.options.signal;
    return lifetime && signal ? AbortSignal.any([lifetime, signal]) : (lifetime ?? signal);
  }

  /** The same turn as `send`, as an async iterable of its events; the last one is `turn-end`. */
  async *stream(input: string | ContentPart[] | null, options: { signal?: AbortSignal } = {}): AsyncGenerator<AgentEvent, void, undefined> {
    const queue: AgentEvent[] = [];
    let next = 0;
    let wake: (() => void) | undefined;
    let settled = false;
    let failure: { error: unknown } | undefined;
    this.send(input, {
      ...options,
      onEvent: (event) => {
        queue.push(event);
        wake?.();
      },
    }).then(
      () => undefined,
      (error: unknown) => {
        failure = { error };
      },
    ).finally(() => {
      settled = true;
      wake?.();
    });
    for (;;) {
      if (next < queue.length) {
        yield queue[next++] as AgentEvent;
        continue;
      }
      if (settled) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
    if (failure) throw failure.error;
  }

  private async runTurn(input: string | ContentPart[] | null, { signal, onEvent }: SendOptions): Promise<TurnResult> {
    const started = performance.now();
    const emit = onEvent ?? (() => undefined);
    const added: Message[] = [];
    const add = (message: Message): void => {
      this.conversation.push(message);
      added.push(message);
    };
    const toolCalls: ToolCallRecord[] = [];
    const usage: Usage = { ...NO_USAGE };
    const guard = new RepeatGuard();
    // The reply being streamed until it is added to the conversation; only an uncommitted one is kept on failure.
    let uncommitted: Reply | undefined;
    let iterations = 0;
    let stopReason: StopReason = "answer";
    let error: TurnError | undefined;
    let answer = "";
    let reasoning = "";

    let clientToolCalls: ToolCall[] | undefined;
    let finishReason: FinishReason | undefined;
    let stopSequence: string | undefined;
    const hooks = this.options.hooks;
    // Set once a Stop hook kept the turn going (Claude Code's stop_hook_active).
    let stopHookActive = false;
    const prompt = input === null ? null : await this.promptWithHooks(input, emit, signal);
    if (prompt !== null && "blocked" in prompt) {
      error = { code: "hook-blocked", message: `A UserPromptSubmit hook blocked the prompt: ${prompt.blocked}` };
      stopReason = "error";
      emit({ type: "error", error });
    } else if (prompt !== null) add({ role: "user", content: prompt.content });
    const offer = this.toolOffer.startTurn(this.catalog);
    const format = this.options.responseFormat;
    // Set once a final reply missed the response format: the next request asks for it without tools.
    let reformat = false;
    try {
      for (; stopReason !== "error"; ) {
        const maxToolCalls = this.options.maxToolCalls ?? Infinity;
        const limit: keyof typeof ANSWER_NOW | undefined =
          stopReason === "repeated-call" ? "repeated-call" : iterations >= this.maxIterations ? "max-iterations" : toolCalls.length >= maxToolCalls ? "max-tool-calls" : undefined;
        if (limit) stopReason = limit;
        const offersTools = !limit && !reformat;
        // What the servers offer now: a list its server's caching hint says went stale is listed again first.
        if (offersTools) await this.host.refreshTools?.(signal);
        this.catalog.refresh();
        const tools = offersTools ? this.offeredTools(offer) : undefined;
        const withTools = tools !== undefined && tools.length > 0;
        iterations += 1;
        emit({ type: "model-request", iteration: iterations, toolCount: tools?.length ?? 0, withTools });
        const reply: Reply = { text: "", reasoning: "", blocks: [], toolCalls: [] };
        uncommitted = reply;
        const hold = format !== undefined && withTools;
        await this.request(tools, limit ? ANSWER_NOW[limit] : undefined, reply, usage, signal, hold ? holdText(emit) : emit);
        if (signal?.aborted) throw signal.reason;
        reasoning += reply.reasoning;
        uncommitted = undefined;
        finishReason = reply.finish;
        stopSequence = reply.stopSequence;
        if (hold) {
          const final = reply.toolCalls.length === 0;
          if (final && !matchesFormat(format, reply.text)) {
            reformat = true;
            continue;
          }
          if (reply.text !== "") emit(final ? { type: "text-delta", text: reply.text } : { type: "reasoning-delta", text: reply.text });
        }
        if (limit || reply.toolCalls.length === 0) {
          // At a limit the model was offered no tools; any call it writes anyway is dropped, not left dangling.
          add(assistantMessage(reply, [], []));
          answer = reply.text;
          if (!limit && hooks?.has("Stop")) {
            const stop = await hooks.run("Stop", { stop_hook_active: stopHookActive, last_assistant_message: reply.text }, undefined, signal);
            for (const line of stop.problems) emit({ type: "notice", code: "hook", message: line });
            // A Stop hook that blocks keeps the turn going with its reason for the model (within the turn's limits).
            if (stop.block !== undefined && !signal?.aborted) {
              add({ role: "user", content: `[hook] ${stop.block}` });
              stopHookActive = true;
              continue;
            }
          }
          break;
        }
        const calls = withIds(reply.toolCalls, this.conversation.length);
        const forClient = calls.filter((call) => this.clientToolNames.has(call.name));
        if (forClient.length > 0) {
          // The client runs these and sends their results in its next request; hub calls of the same reply are not run then.
          add(assistantMessage(reply, calls, forClient));
          answer = reply.text;
          clientToolCalls = forClient;
          stopReason = "client-tools";
          break;
        }
        add(assistantMessage(reply, calls, calls));
        const parsed = calls.map((call): ParsedToolCall => ({ call, args: parseToolArguments(call.arguments) }));
        const skipped = new Map<ToolCall, SkippedCall>();
        for (const entry of parsed.slice(Math.max(0, maxToolCalls - toolCalls.length))) {
          skipped.set(entry.call, { outcome: "over-limit", reason: `Not run: this question may make at most ${maxToolCalls} tool calls, and they are used up. Use the results you already have.` });
        }
        for (const entry of parsed) {
          if (skipped.has(entry.call)) continue;
          if (guard.isRunaway(entry)) {
            skipped.set(entry.call, { outcome: "repeated", reason: `Not run: "${entry.call.name}" was called with these same arguments ${MAX_IDENTICAL_CALLS} times in a row, and its result will not change. Use the results you already have.` });
            stopReason = "repeated-call";
          }
        }
        const records = await runWithToolSearch(parsed, offer, emit, (others) =>
          runToolCalls(others, {
            host: this.host,
            catalog: this.catalog,
            signal,
            toolTimeoutMs: this.options.toolTimeoutMs,
            approval: this.approval,
            emit,
            skipped,
            ...(hooks ? { hooks } : {}),
          }),
        );
        for (const record of records) {
          toolCalls.push(record);
          add({ role: "tool", toolCallId: record.id, name: record.name, content: record.content, ...(record.isError ? { isError: true } : {}) });
        }
        if (signal?.aborted) throw signal.reason;
      }
    } catch (caught) {
      // Whatever streamed before the failure is kept, so the conversation shows what the user saw;
      // but not an answer cut off for its size, which every later request would carry again.
      const tooLarge = caught instanceof LlmError && caught.code === "too-large";
      if (uncommitted && !tooLarge && (uncommitted.text !== "" || uncommitted.reasoning !== "")) {
        add(assistantMessage(uncommitted, [], []));
        answer = uncommitted.text;
      }
      if (signal?.aborted) stopReason = "aborted";
      else {
        stopReason = "error";
        error = toTurnError(caught);
        emit({ type: "error", error });
      }
    }

    const turn: TurnResult = {
      input: input === null ? "" : typeof input === "string" ? input : input.map(partText).join(""),
      text: answer,
      reasoning,
      status: stopReason === "aborted" ? "aborted" : stopReason === "error" ? "failed" : "completed",
      stopReason,
      limitReached: stopReason === "max-iterations" || stopReason === "max-tool-calls" || stopReason === "repeated-call",
      iterations,
      toolCalls,
      usage,
      durationMs: performance.now() - started,
      messages: added,
      ...(error ? { error } : {}),
      ...(clientToolCalls ? { clientToolCalls } : {}),
      ...(finishReason ? { finishReason } : {}),
      ...(stopSequence !== undefined ? { stopSequence } : {}),
    };
    emit({ type: "turn-end", turn });
    return turn;
  }

  /**
   * The user's message after the hooks: SessionStart (first turn of a new conversation) and
   * UserPromptSubmit may add context, which goes into the message; UserPromptSubmit may block it.
   */
  private async promptWithHooks(input: string | ContentPart[], emit: (event: AgentEvent) => void, signal: AbortSignal | undefined): Promise<{ content: string | ContentPart[] } | { blocked: string }> {
    const hooks = this.options.hooks;
    const starting = this.sessionStarting;
    this.sessionStarting = false;
    if (!hooks) return { content: typeof input === "string" ? input : [...input] };
    const contexts: string[] = [];
    const heard = (verdict: HookVerdict): void => {
      for (const line of verdict.problems) emit({ type: "notice", code: "hook", message: line });
      if (verdict.context !== undefined) contexts.push(verdict.context);
    };
    // SessionStart only adds context; UserPromptSubmit may also block.
    if (starting && hooks.has("SessionStart")) heard(await hooks.run("SessionStart", { source: "startup" }, undefined, signal));
    if (hooks.has("UserPromptSubmit")) {
      const verdict = await hooks.run("UserPromptSubmit", { prompt: typeof input === "string" ? input : input.map(partText).join("") }, undefined, signal);
      heard(verdict);
      if (verdict.block !== undefined) return { blocked: verdict.block };
    }
    if (contexts.length === 0) return { content: typeof input === "string" ? input : [...input] };
    const note = `[hook] ${contexts.join("\n\n")}`;
    return { content: typeof input === "string" ? `${input}\n\n${note}` : [...input, { type: "text", text: note }] };
  }

  /** One streamed model request into `reply`; in auto mode a refusal of `tools` switches to prompt mode and retries. */
  private async request(
    tools: ToolDefinition[] | undefined,
    answerNow: string | undefined,
    reply: Reply,
    usage: Usage,
    signal: AbortSignal | undefined,
    emit: (event: AgentEvent) => void,
  ): Promise<void> {
    const messages = this.requestMessages(answerNow);
    const offered = tools && tools.length > 0 ? tools : undefined;
    for (;;) {
      const request: ChatRequest = { messages };
      if (offered) {
        request.tools = offered;
        if (this.options.toolChoice) request.toolChoice = this.options.toolChoice;
      }
      if (this.options.generation) Object.assign(request, this.options.generation);
      if (this.options.responseFormat && !offered) request.responseFormat = this.options.responseFormat;
      if (this.options.temperature !== undefined) request.temperature = this.options.temperature;
      if (this.options.maxTokens !== undefined) request.maxTokens = this.options.maxTokens;
      if (signal) request.signal = signal;
      let streamed = false;
      try {
        for await (const event of this.session.model.stream(request)) {
          // A retry announces a new attempt; nothing of the model's came yet.
          if (event.type === "retry") {
            emit({ type: "notice", code: "retry", message: `retrying (${event.attempt}/${event.maxRetries}) after ${event.reason}` });
            continue;
          }
          streamed = true;
          addBlock(reply.blocks, event);
          switch (event.type) {
            case "text-delta":
              reply.text += event.text;
              emit(event);
              break;
            case "reasoning-delta":
              reply.reasoning += event.text;
              emit(event);
              break;
            case "reasoning-signature":
            case "reasoning-redacted":
              emit(event);
              break;
            case "logprobs":
              emit(event);
              break;
            case "tool-call":
              reply.toolCalls.push(event.call);
              emit({ type: "tool-call-written", call: event.call });
              break;
            case "usage":
              usage.inputTokens += event.usage.inputTokens;
              usage.outputTokens += event.usage.outputTokens;
              usage.totalTokens += event.usage.totalTokens;
              emit(event);
              break;
            case "finish":
              reply.finish = event.reason;
              if (event.stopSequence !== undefined) reply.stopSequence = event.stopSequence;
              break;
          }
        }
        return;
      } catch (error) {
        if (!streamed && offered && error instanceof LlmError && error.code === "tools-unsupported" && this.session.switchToPrompt()) {
          emit({
            type: "notice",
            code: "prompt-mode",
            message: `${this.options.model.modelId} does not accept native tool calls here; switched to prompt-based tool calling for this session.`,
          });
          continue;
        }
        throw error;
      }
    }
  }

  /** The host's tools of this request (after the allow-list and tool search), less those a client tool shadows, then the client's. */
  private offeredTools(offer: TurnOffer): ToolDefinition[] {
    const hubTools = offer.definitions();
    const clientTools = this.options.clientTools ?? [];
    if (clientTools.length === 0) return hubTools;
    return [...hubTools.filter((tool) => !this.clientToolNames.has(tool.name)), ...clientTools];
  }

  private requestMessages(answerNow: string | undefined): Message[] {
    const messages: Message[] = [];
    if (this.options.systemPrompt) messages.push({ role: "system", content: this.options.systemPrompt });
    for (const message of this.conversation) messages.push(message.role === "tool" ? this.cappedView(message) : message);
    if (answerNow) messages.push({ role: "user", content: answerNow });
    return messages;
  }

  private cappedView(message: Extract<Message, { role: "tool" }>): Message {
    let view = this.cappedViews.get(message);
    if (!view) {
      const content = capToolContent(message.content, this.maxToolResultChars);
      view = content === message.content ? message : { ...message, content };
      this.cappedViews.set(message, view);
    }
    return view;
  }
}

/** The events of a reply whose text waits for the reply to end (see AgentOptions.responseFormat). */
function holdText(emit: (event: AgentEvent) => void): (event: AgentEvent) => void {
  return (event) => {
    if (event.type !== "text-delta") emit(event);
  };
}

/** A streamed event into the reply's blocks: a signature ends its reasoning block; text and reasoning grow the block still open. */
function addBlock(blocks: ReplyBlock[], event: StreamEvent): void {
  const last = blocks[blocks.length - 1];
  switch (event.type) {
    case "text-delta":
      if (last?.type === "text") last.text += event.text;
      else blocks.push({ type: "text", text: event.text });
      return;
    case "reasoning-delta":
      if (last?.type === "reasoning" && last.signature === "") last.text += event.text;
      else blocks.push({ type: "reasoning", text: event.text, signature: "" });
      return;
    case "reasoning-signature":
      if (last?.type === "reasoning" && last.signature === "") last.signature = event.signature;
      else blocks.push({ type: "reasoning", text: "", signature: event.signature });
      return;
    case "reasoning-redacted":
      blocks.push({ type: "redacted-reasoning", data: event.data });
      return;
    case "tool-call":
      blocks.push({ type: "tool-call" });
      return;
    default:
      return;
  }
}

/**
 * The reply as the conversation keeps it, with `kept` of its calls (`calls`: all of them, in
 * the reply's order). Its blocks are kept when the provider signed or redacted reasoning in it,
 * the places of calls not kept taken out.
 */
function assistantMessage(reply: Reply, calls: readonly ToolCall[], kept: ToolCall[]): Message {
  const message: Extract<Message, { role: "assistant" }> = { role: "assistant", content: reply.text };
  if (kept.length > 0) message.toolCalls = kept;
  if (reply.reasoning !== "") message.reasoning = reply.reasoning;
  if (reply.blocks.some(isSealed)) {
    let next = 0;
    message.blocks = reply.blocks.filter((block) => block.type !== "tool-call" || kept.includes(calls[next++] as ToolCall));
  }
  return message;
}

/** Calls without an id (some servers, some text formats) get one, so every result can name its call. */
function withIds(calls: ToolCall[], salt: number): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((call, index) => {
    if (call.id !== "" && !seen.has(call.id)) {
      seen.add(call.id);
      return call;
    }
    const id = `call_${salt}_${index}`;
    seen.add(id);
    return { ...call, id };
  });
}

function toTurnError(error: unknown): TurnError {
  if (error instanceof LlmError) return { code: error.code, message: error.message };
  return { code: "internal", message: error instanceof Error ? error.message : String(error) };
}
