import type { ChatModelFunctions, GbnfJsonSchema, LlamaChat, LlamaChatResponse, LlamaContextSequence, LlamaGrammar, LlamaModel } from "node-llama-cpp";
import { newCallId } from "./call-id.js";
import { abortedError, LlmError } from "./errors.js";
import { toChatHistory } from "./local-history.js";
import { loadError, loadGguf, localRuntime } from "./local-runtime.js";
import { PushedEvents } from "./pushed-events.js";
import { toGrammarSchema } from "./schema/grammar.js";
import type { ChatModel, ChatRequest, FinishReason, StreamEvent, ToolDefinition } from "./types.js";

export interface LocalModelOptions {
  /** The GGUF file. */
  path: string;
  /** The model's name as the user gave it (an `hf:` reference); default the path. */
  modelId?: string;
  temperature?: number;
  /** Tokens one reply may take; default half the context. */
  maxTokens?: number;
  /** CPU threads llama.cpp uses; default node-llama-cpp's (the machine's math cores). */
  threads?: number;
  /** The context window in tokens; default the model's, at most 8192. */
  contextSize?: number;
  /** Where toolbridge installed llama.cpp's runtime, loaded from there first (see localRuntime). */
  runtimeDir?: string;
}

/** The context a model gets unless told otherwise: its own, up to this (memory grows with it). */
const MAX_DEFAULT_CONTEXT = 8192;

/**
 * A GGUF model run in this process by llama.cpp (node-llama-cpp), as a ChatModel: the
 * conversation is rendered in the model's own chat template, and tool calls are held to
 * the tools' schemas by a grammar. With tool choice "auto" the model decides: its template's
 * function-call syntax starts a call, and from there the grammar writes name and arguments.
 * With "required" or a named tool the whole reply is generated under a grammar that admits
 * only `{"name": ..., "arguments": ...}` of those tools. One request runs at a time.
 */
export class LocalModel implements ChatModel {
  readonly provider = "local";
  readonly modelId: string;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly functions = new WeakMap<readonly ToolDefinition[], ChatModelFunctions>();
  private readonly grammars = new WeakMap<readonly ToolDefinition[], Map<string, Promise<LlamaGrammar>>>();

  private constructor(
    private readonly options: LocalModelOptions,
    private readonly model: LlamaModel,
    private readonly chat: LlamaChat,
    private readonly sequence: LlamaContextSequence,
  ) {
    this.modelId = options.modelId ?? options.path;
  }

  static async open(options: LocalModelOptions): Promise<LocalModel> {
    const { runtime, model } = await loadGguf(options.path, options.runtimeDir);
    runtime.forgetError();
    try {
      const context = await model.createContext({
        contextSize: options.contextSize ?? { max: MAX_DEFAULT_CONTEXT },
        sequences: 1,
        ...(options.threads !== undefined ? { threads: options.threads } : {}),
      });
      const sequence = context.getSequence();
      return new LocalModel(options, model, new runtime.lib.LlamaChat({ contextSequence: sequence }), sequence);
    } catch (error) {
      // A context llama.cpp cannot make (memory, a size the model cannot take) fails the load too, in one line.
      await model.dispose().catch(() => undefined);
      throw loadError(options.path, runtime, error);
    }
  }

  /** The context window in tokens. */
  get contextSize(): number {
    return this.sequence.contextSize;
  }

  stream(request: ChatRequest): AsyncIterable<StreamEvent> {
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        // One sequence: requests take turns.
        const before = self.queue;
        let release = () => {};
        self.queue = new Promise<void>((resolve) => (release = resolve));
        try {
          await before;
          yield* self.generate(request);
        } finally {
          release();
        }
      },
    };
  }

  /** Frees the model and its context. */
  async close(): Promise<void> {
    await this.queue;
    this.chat.dispose();
    await this.model.dispose();
  }

  private async *generate(request: ChatRequest): AsyncGenerator<StreamEvent> {
    const tools = request.toolChoice === "none" ? [] : (request.tools ?? []);
    const forced = tools.length > 0 ? forcedTools(tools, request.toolChoice) : undefined;
    const history = toChatHistory(request.messages, forced ? callInstructions(forced) : undefined);
    const meter = this.sequence.tokenMeter.getState();
    const signal = request.signal;
    if (signal?.aborted) throw abortedError(this.options.path);
    // Stopped when the caller stops reading too, so the next request finds the sequence free.
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const temperature = request.temperature ?? this.options.temperature;
    const settings = {
      maxTokens: request.maxTokens ?? this.options.maxTokens ?? Math.floor(this.contextSize / 2),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(request.topK !== undefined ? { topK: request.topK } : {}),
      ...(request.topP !== undefined ? { topP: request.topP } : {}),
      ...(request.seed !== undefined ? { seed: request.seed } : {}),
      ...(request.stop?.length ? { customStopTriggers: request.stop } : {}),
      signal: stop.signal,
    };

    let response: LlamaChatResponse<ChatModelFunctions | undefined> | undefined;
    let done: Promise<LlamaChatResponse<ChatModelFunctions | undefined>> | undefined;
    try {
      if (forced) {
        response = await this.chat.generateResponse(history, { ...settings, grammar: await this.grammarFor(tools, forced) });
      } else {
        const events = new PushedEvents<StreamEvent>();
        done = this.chat.generateResponse(history, {
          ...settings,
          ...(tools.length > 0 ? { functions: this.functionsFor(tools) } : {}),
          onResponseChunk: (chunk) => {
            if (chunk.text) events.push(chunk.type === "segment" ? { type: "reasoning-delta", text: chunk.text } : { type: "text-delta", text: chunk.text });
          },
        });
        done.then(
          () => events.end(),
          (error: unknown) => events.fail(error),
        );
        yield* events;
        response = await done;
      }
    } catch (error) {
      if (signal?.aborted) throw abortedError(this.options.path);
      // node-llama-cpp drops old turns to make room, and says so when even that is not enough.
      if (error instanceof Error && /fits the context size|Failed to compress chat history/.test(error.message)) {
        throw new LlmError("context-length", `The conversation is longer than the local model's context of ${this.contextSize} tokens (llm.contextSize).`, { cause: error });
      }
      throw error;
    } finally {
      signal?.removeEventListener("abort", onAbort);
      if (!response) {
        stop.abort();
        await done?.catch(() => undefined);
      }
    }

    const used = this.sequence.tokenMeter.diff(meter);
    const calls = forced ? [forcedCall(response.response, this.options.path)] : (response.functionCalls ?? []).map((call) => ({ name: call.functionName, arguments: JSON.stringify(call.params ?? {}) }));
    for (const call of calls) yield { type: "tool-call", call: { id: newCallId(), ...call } };
    yield { type: "usage", usage: { inputTokens: used.usedInputTokens, outputTokens: used.usedOutputTokens, totalTokens: used.usedInputTokens + used.usedOutputTokens } };
    const ended = response.metadata;
    const reason: FinishReason = calls.length > 0 ? "tool-calls" : ended.stopReason === "maxTokens" ? "length" : "stop";
    if (ended.stopReason === "customStopTrigger") {
      const trigger = ended.customStopTrigger.filter((part): part is string => typeof part === "string").join("");
      yield { type: "finish", reason, stopSequence: trigger };
    } else {
      yield { type: "finish", reason };
    }
  }

  /** The tools as node-llama-cpp's functions, converted once per tool list. */
  private functionsFor(tools: readonly ToolDefinition[]): ChatModelFunctions {
    let functions = this.functions.get(tools);
    if (!functions) {
      functions = Object.fromEntries(tools.map((tool) => [tool.name, { ...(tool.description ? { description: tool.description } : {}), params: toGrammarSchema(tool.parameters) }]));
      this.functions.set(tools, functions);
    }
    return functions;
  }

  /** The grammar of a call of one of `forced`, made once per tool list and choice. */
  private grammarFor(tools: readonly ToolDefinition[], forced: readonly ToolDefinition[]): Promise<LlamaGrammar> {
    let byChoice = this.grammars.get(tools);
    if (!byChoice) this.grammars.set(tools, (byChoice = new Map()));
    const key = forced.map((tool) => tool.name).join("\n");
    let grammar = byChoice.get(key);
    if (!grammar) {
      const shapes: GbnfJsonSchema[] = forced.map((tool) => ({ type: "object", properties: { name: { const: tool.name }, arguments: toGrammarSchema(tool.parameters) } }));
      grammar = localRuntime().then(({ llama }) => llama.createGrammarForJsonSchema<GbnfJsonSchema>(shapes.length === 1 ? shapes[0]! : { oneOf: shapes }));
      byChoice.set(key, grammar);
      grammar.catch(() => byChoice.delete(key));
    }
    return grammar;
  }
}

/** The tools a reply must call one of; undefined when the model may also answer. */
function forcedTools(tools: readonly ToolDefinition[], choice: ChatRequest["toolChoice"]): readonly ToolDefinition[] | undefined {
  if (choice === "required") return tools;
  if (typeof choice === "object") {
    const named = tools.filter((tool) => tool.name === choice.name);
    if (named.length === 0) throw new LlmError("config", `The tool choice names "${choice.name}", which is not among the tools offered.`);
    return named;
  }
  return undefined;
}

/** What the model is told when its reply must be a call: the grammar holds the form, this says what the tools do. */
function callInstructions(tools: readonly ToolDefinition[]): string {
  const listed = tools.map((tool) => `- ${tool.name}${tool.description ? `: ${tool.description}` : ""}\n  arguments: ${JSON.stringify(tool.parameters)}`).join("\n");
  return `Call one of these tools now, replying with one JSON object {"name": the tool's name, "arguments": its arguments}:\n${listed}`;
}

/** The call a grammar-held reply holds; a reply cut short by maxTokens holds none. */
function forcedCall(text: string, path: string): { name: string; arguments: string } {
  try {
    const call = JSON.parse(text) as { name: string; arguments: unknown };
    return { name: call.name, arguments: JSON.stringify(call.arguments) };
  } catch {
    throw new LlmError("bad-response", `The local model ${path} ran out of tokens (llm.maxTokens) in the middle of a tool call.`);
  }
}
