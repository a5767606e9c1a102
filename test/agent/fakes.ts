import type { ChatModel, ChatRequest, StreamEvent, ToolCall } from "../../src/llm/types.js";
import type { CallToolOptions, CallToolResult, HubTool } from "../../src/mcp/types.js";
import type { ToolHost } from "../../src/agent/tool-host.js";
import { ApprovalPolicy, type Approval } from "../../src/agent/approval.js";

/** Every tool runs unasked: for tests about something other than approval. */
export const allowAll: Approval = { policy: new ApprovalPolicy({ mode: "all" }) };

/** One scripted model reply: events to stream, or an error to throw before anything streams. */
export type ScriptedReply = StreamEvent[] | Error | ((request: ChatRequest) => AsyncIterable<StreamEvent> | StreamEvent[]);

/** A ChatModel that plays back replies in order and keeps every request it was sent. */
export class FakeModel implements ChatModel {
  readonly provider = "fake";
  readonly requests: ChatRequest[] = [];
  private next = 0;

  constructor(
    private readonly replies: ScriptedReply[],
    readonly modelId = "fake-model",
  ) {}

  async *stream(request: ChatRequest): AsyncIterable<StreamEvent> {
    const { signal: _signal, ...plain } = request;
    this.requests.push({ ...structuredClone(plain), ...(request.signal ? { signal: request.signal } : {}) });
    const reply = this.replies[this.next++];
    if (reply === undefined) throw new Error(`FakeModel: no reply scripted for request ${this.next}`);
    if (reply instanceof Error) throw reply;
    const events = typeof reply === "function" ? reply(request) : reply;
    for await (const event of events) {
      if (request.signal?.aborted) throw request.signal.reason;
      yield event;
    }
  }
}

export const text = (value: string): StreamEvent[] => [
  { type: "text-delta", text: value },
  { type: "usage", usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
  { type: "finish", reason: "stop" },
];

export const calls = (...list: Array<[id: string, name: string, args: string]>): StreamEvent[] => [
  ...list.map(([id, name, args]): StreamEvent => ({ type: "tool-call", call: { id, name, arguments: args } satisfies ToolCall })),
  { type: "usage", usage: { inputTokens: 20, outputTokens: 8, totalTokens: 28 } },
  { type: "finish", reason: "tool-calls" },
];

export type ToolHandler = (args: Record<string, unknown>, options: CallToolOptions | undefined) => CallToolResult | Promise<CallToolResult>;

/** A ToolHost with in-process tools; records every call. */
export class FakeHost implements ToolHost {
  readonly called: Array<{ name: string; args: Record<string, unknown>; options: CallToolOptions | undefined }> = [];
  private list: HubTool[];

  constructor(private readonly handlers: Record<string, { schema?: Record<string, unknown>; run: ToolHandler; description?: string }>) {
    this.list = Object.entries(handlers).map(([name, tool]) => ({
      name,
      server: "fake",
      originalName: name,
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: tool.schema ?? { type: "object", properties: {} },
    }));
  }

  tools(): HubTool[] {
    return this.list;
  }

  async callTool(name: string, args: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult> {
    this.called.push({ name, args, options });
    const tool = this.handlers[name];
    if (!tool) throw new Error(`unknown tool ${name}`);
    return tool.run(args, options);
  }
}

export const textResult = (value: string, isError = false): CallToolResult => ({ content: [{ type: "text", text: value }], ...(isError ? { isError } : {}) });

export const dateSchema = {
  type: "object",
  properties: {
    format: { type: "string", enum: ["iso", "locale", "date-only", "time-only", "timestamp"] },
    timezone: { type: "string" },
  },
  additionalProperties: false,
};

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}
