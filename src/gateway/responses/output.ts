import type { AgentEvent, TurnResult } from "../../agent/events.js";
import type { HubTool } from "../../mcp/types.js";
import { base64Bytes, resultBody } from "../../agent/tool-result.js";
import { partText } from "../../llm/content-part.js";
import type { ContentPart, TokenLogprob, ToolCall } from "../../llm/types.js";
import { sealBlock, ThinkingBlocks, type ThinkingBlock } from "../thinking-blocks.js";
import { signatureField } from "../openai-wire.js";
import { signedCallId } from "../signed-call-id.js";
import { itemId, responseUsage, type Item, type NamespacedFunction } from "./wire.js";

/**
 * The output of one response, built from the agent's events, and (when streamed) the event
 * sequence OpenAI sends for it: `response.created`, `response.in_progress`, then per item
 * `output_item.added` … its deltas … `output_item.done`, then `response.completed`. Streamed
 * and whole responses are built by the same code, so they hold the same items. A model's
 * thinking is a reasoning item's content (`reasoning_text`, as vLLM sends it) and also its one
 * summary part, the part the AI SDK, LangChain and Codex show.
 */

type Send = (event: Record<string, unknown>) => void;

interface OpenItem {
  item: Item;
  index: number;
  text: string;
  /** The text's tokens' log probabilities, when the request asked for them. */
  logprobs: TokenLogprob[];
}

export interface OutputOptions {
  /** The response object's fields other than status, output and usage. */
  base: Record<string, unknown>;
  /** Streamed: where each event goes. */
  send?: Send;
  /** Hub tool calls show as `mcp_call` items (the request named its MCP servers); else they stay inside. */
  showToolCalls: boolean;
  /** The hub's tools by exposed name, for the server and name an `mcp_call` shows. */
  hubTool: (exposedName: string) => HubTool | undefined;
  /** Tools whose calls wait for the client's approval, by exposed name. */
  needApproval: ReadonlyMap<string, HubTool>;
  /** The client's functions of namespaces, by the name the model calls them by. */
  namespaced: ReadonlyMap<string, NamespacedFunction>;
  /** The names of the tools whose calls go to the client (its functions and the calls it approves). */
  clientNames: ReadonlySet<string>;
}

export class ResponseOutput {
  /** Every item of this response, the hidden tool calls included (what the conversation keeps). */
  readonly items: Item[] = [];
  /** What the client is shown. */
  readonly visible: Item[] = [];
  private sequence = 0;
  private message: OpenItem | undefined;
  private reasoning: OpenItem | undefined;
  private readonly calls = new Map<string, { item: Item; index: number | undefined }>();
  private readonly thinking = new ThinkingBlocks();
  /** The ids of the client's calls already written in their place among the reasoning items. */
  private readonly placed = new Set<string>();

  constructor(private readonly options: OutputOptions) {}

  private itemId(prefix: string): string {
    return itemId(prefix, String(this.options.base.id));
  }

  /** The response as it stands. */
  response(status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { ...this.options.base, status, output: this.visible, ...extra };
  }

  start(): void {
    this.emit("response.created", { response: this.response("in_progress") });
    this.emit("response.in_progress", { response: this.response("in_progress") });
  }

  listTools(label: string, tools: readonly HubTool[]): void {
    const item: Item = { id: this.itemId("mcpl"), type: "mcp_list_tools", server_label: label, tools: [] };
    const index = this.add(item, true);
    this.emit("response.mcp_list_tools.in_progress", { item_id: item.id, output_index: index });
    item.tools = tools.map((tool) => ({
      name: tool.originalName,
      description: tool.description ?? tool.title ?? null,
      input_schema: tool.inputSchema,
      annotations: tool.annotations ?? null,
    }));
    this.emit("response.mcp_list_tools.completed", { item_id: item.id, output_index: index });
    this.done(item, index);
  }

  /** A call the gateway ran on the client's approval, before the model goes on. */
  approvedCall(request: { id: string; server_label: string; name: string; arguments: string }, result: CallOutput): void {
    const item: Item = { id: this.itemId("mcp"), type: "mcp_call", server_label: request.server_label, name: request.name, arguments: request.arguments, approval_request_id: request.id, output: null, error: null, status: "calling" };
    const index = this.add(item, true);
    this.finishCall(item, index, result);
  }

  /**
   * One agent event; text and reasoning stream as deltas, hub tool calls as `mcp_call` items.
   * Signed or redacted reasoning ends its reasoning item with the block as `encrypted_content`
   * (whether or not `include` asks: a client replaying output items as input without asking,
   * which OpenAI serves from the items it stored, would otherwise lose the thinking),
   * and the client's calls are written in their place among such items, since a provider wants
   * its thinking back where it stood between the calls.
   */
  onEvent(event: AgentEvent): void {
    const sealed = this.thinking.add(event);
    if (sealed) {
      this.seal(sealed);
      return;
    }
    switch (event.type) {
      case "model-request":
        this.closeText();
        return;
      case "reasoning-delta": {
        if (!this.reasoning) {
          this.closeMessage();
          const item: Item = { id: this.itemId("rs"), type: "reasoning", summary: [], content: [], status: "in_progress" };
          const index = this.add(item, true);
          this.reasoning = { item, index, text: "", logprobs: [] };
          this.emit("response.content_part.added", { item_id: item.id, output_index: index, content_index: 0, part: { type: "reasoning_text", text: "" } });
          this.emit("response.reasoning_summary_part.added", { item_id: item.id, output_index: index, summary_index: 0, part: { type: "summary_text", text: "" } });
        }
        const open = this.reasoning;
        open.text += event.text;
        this.emit("response.reasoning_text.delta", { item_id: open.item.id, output_index: open.index, content_index: 0, delta: event.text });
        this.emit("response.reasoning_summary_text.delta", { item_id: open.item.id, output_index: open.index, summary_index: 0, delta: event.text });
        return;
      }
      case "text-delta": {
        if (!this.message) {
          this.closeReasoning();
          const item: Item = { id: this.itemId("msg"), type: "message", status: "in_progress", role: "assistant", content: [] };
          const index = this.add(item, true);
          this.message = { item, index, text: "", logprobs: [] };
          this.emit("response.content_part.added", { item_id: item.id, output_index: index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
        }
        const open = this.message;
        open.text += event.text;
        this.emit("response.output_text.delta", { item_id: open.item.id, output_index: open.index, content_index: 0, delta: event.text, logprobs: [] });
        return;
      }
      case "logprobs":
        this.message?.logprobs.push(...event.content);
        return;
      case "tool-call-written":
        if (event.call.id === "" || !this.options.clientNames.has(event.call.name)) return;
        this.closeText();
        this.clientCall(event.call);
        this.placed.add(event.call.id);
        return;
      case "tool-call-started": {
        this.closeText();
        const tool = this.options.hubTool(event.name);
        const args = typeof event.arguments === "string" ? event.arguments : JSON.stringify(event.arguments);
        const item: Item = { id: this.itemId("mcp"), type: "mcp_call", server_label: tool?.server ?? "toolbridge", name: tool?.originalName ?? event.name, arguments: "", output: null, error: null, status: "in_progress" };
        const shown = this.options.showToolCalls;
        const index = this.add(item, shown);
        this.calls.set(event.id, { item, index: shown ? index : undefined });
        if (shown) {
          this.emit("response.mcp_call_arguments.delta", { item_id: item.id, output_index: index, delta: args });
          this.emit("response.mcp_call_arguments.done", { item_id: item.id, output_index: index, arguments: args });
          this.emit("response.mcp_call.in_progress", { item_id: item.id, output_index: index });
        }
        item.arguments = args;
        item.status = "calling";
        return;
      }
      case "tool-call-finished": {
        const call = this.calls.get(event.id);
        if (!call) return;
        this.calls.delete(event.id);
        this.finishCall(call.item, call.index, event.isError && !event.result ? { error: event.summary } : mcpCallOutput(event.result ? resultBody(event.result) : event.summary, event.isError));
        return;
      }
      default:
        return;
    }
  }

  /**
   * The turn's calls for the client not yet written (functions to run, MCP calls to approve).
   * Called before finish, so that the approvals asked are recorded before the client can answer.
   */
  clientCalls(turn: TurnResult): void {
    const calls = (turn.clientToolCalls ?? []).filter((call) => !this.placed.has(call.id));
    if (calls.length > 0) this.closeText();
    for (const call of calls) {
      this.clientCall(call);
      this.placed.add(call.id);
    }
  }

  /**
   * The turn's end: calls for the client, then the final event. An answer cut at the token
   * limit ends as OpenAI ends it: the open item and the response `incomplete`,
   * `incomplete_details.reason` "max_output_tokens", `response.incomplete`.
   */
  finish(turn: TurnResult): Record<string, unknown> {
    const cut = turn.status === "completed" && turn.finishReason === "length" && (turn.clientToolCalls ?? []).length === 0;
    this.closeText(cut ? "incomplete" : "completed");
    this.clientCalls(turn);
    const usage = responseUsage(turn.usage);
    if (turn.status === "failed") {
      const error = { code: "server_error", message: `Upstream model failed: ${turn.error?.message ?? "the turn failed"}` };
      const response = this.response("failed", { error, usage });
      this.emit("response.failed", { response });
      return response;
    }
    if (cut) {
      const response = this.response("incomplete", { usage, incomplete_details: { reason: "max_output_tokens" } });
      this.emit("response.incomplete", { response });
      return response;
    }
    const response = this.response("completed", { usage, completed_at: Math.floor(Date.now() / 1000) });
    this.emit("response.completed", { response });
    return response;
  }

  private seal(block: ThinkingBlock): void {
    const open = this.reasoning;
    if (open && block.type === "thinking") {
      open.item.encrypted_content = sealBlock(block);
      this.closeReasoning();
      return;
    }
    this.closeText();
    // Announced as every item is, in progress; the done event carries what it holds.
    const item: Item = { id: this.itemId("rs"), type: "reasoning", summary: [], content: [], status: "in_progress" };
    const index = this.add(item, true);
    item.encrypted_content = sealBlock(block);
    item.status = "completed";
    this.done(item, index);
  }

  private clientCall(call: ToolCall): void {
    const tool = this.options.needApproval.get(call.name);
    if (tool) {
      const item: Item = { id: this.itemId("mcpr"), type: "mcp_approval_request", server_label: tool.server, name: tool.originalName, arguments: call.arguments };
      this.done(item, this.add(item, true));
      return;
    }
    // A namespace's function goes back under its own name and its namespace, as OpenAI sends it.
    const { name, namespace } = this.options.namespaced.get(call.name) ?? { name: call.name };
    const item: Item = { id: this.itemId("fc"), type: "function_call", call_id: signedCallId(call), name, ...(namespace ? { namespace } : {}), arguments: "", ...signatureField(call), status: "in_progress" };
    const index = this.add(item, true);
    this.emit("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta: call.arguments });
    this.emit("response.function_call_arguments.done", { item_id: item.id, output_index: index, name, arguments: call.arguments });
    item.arguments = call.arguments;
    item.status = "completed";
    this.done(item, index);
  }

  private finishCall(item: Item, index: number | undefined, result: CallOutput): void {
    const failed = result.error !== undefined;
    item.output = result.output ?? null;
    item.error = result.error ?? null;
    if (result.parts) item.output_parts = result.parts;
    item.status = failed ? "failed" : "completed";
    if (index === undefined) return;
    this.emit(failed ? "response.mcp_call.failed" : "response.mcp_call.completed", { item_id: item.id, output_index: index });
    this.done(item, index);
  }

  private closeText(status: "completed" | "incomplete" = "completed"): void {
    this.closeReasoning(status);
    this.closeMessage(status);
  }

  private closeMessage(status: "completed" | "incomplete" = "completed"): void {
    const open = this.message;
    if (!open) return;
    this.message = undefined;
    const part = { type: "output_text", text: open.text, annotations: [], logprobs: open.logprobs };
    this.emit("response.output_text.done", { item_id: open.item.id, output_index: open.index, content_index: 0, text: open.text, logprobs: open.logprobs });
    this.emit("response.content_part.done", { item_id: open.item.id, output_index: open.index, content_index: 0, part });
    open.item.content = [part];
    open.item.status = status;
    this.done(open.item, open.index);
  }

  private closeReasoning(status: "completed" | "incomplete" = "completed"): void {
    const open = this.reasoning;
    if (!open) return;
    this.reasoning = undefined;
    const part = { type: "reasoning_text", text: open.text };
    this.emit("response.reasoning_text.done", { item_id: open.item.id, output_index: open.index, content_index: 0, text: open.text });
    this.emit("response.content_part.done", { item_id: open.item.id, output_index: open.index, content_index: 0, part });
    const summary = { type: "summary_text", text: open.text };
    this.emit("response.reasoning_summary_text.done", { item_id: open.item.id, output_index: open.index, summary_index: 0, text: open.text });
    this.emit("response.reasoning_summary_part.done", { item_id: open.item.id, output_index: open.index, summary_index: 0, part: summary });
    open.item.content = [part];
    open.item.summary = [summary];
    open.item.status = status;
    this.done(open.item, open.index);
  }

  /** Adds an item; shown ones are announced (as they start: a copy, since the item grows). */
  private add(item: Item, shown: boolean): number {
    this.items.push(item);
    if (!shown) return -1;
    this.visible.push(item);
    const index = this.visible.length - 1;
    this.emit("response.output_item.added", { output_index: index, item: structuredClone(item) });
    return index;
  }

  private done(item: Item, index: number): void {
    this.emit("response.output_item.done", { output_index: index, item });
  }

  private emit(type: string, fields: Record<string, unknown>): void {
    const send = this.options.send;
    if (!send) return;
    send({ type, sequence_number: this.sequence++, ...fields });
  }
}

/** What an `mcp_call` item says of its call's result. */
export interface CallOutput {
  output?: string;
  error?: string;
  /** The result with its images, as Responses input parts, when it has images. */
  parts?: Item[];
}

/**
 * A tool's result as an `mcp_call` item holds it. `output` is text, as OpenAI's types have
 * it: an image there is a line naming it (OpenAI's hosted MCP tool drops images). The images
 * themselves go in `output_parts` (`input_text` and `input_image` parts, as a
 * function_call_output's array takes them), so the client gets them and the model still
 * sees them when the conversation goes on from the stored response.
 */
export function mcpCallOutput(content: string | ContentPart[], isError = false): CallOutput {
  const text = typeof content === "string" ? content : content.map((part) => (part.type === "text" || part.type === "image-url" ? partText(part) : `[${part.type} ${part.mimeType}, ${base64Bytes(part.data)} bytes]`)).join("\n");
  const result: CallOutput = isError ? { error: text } : { output: text };
  if (typeof content !== "string" && content.some((part) => part.type === "image" || part.type === "image-url")) {
    result.parts = content.flatMap((part): Item[] => {
      if (part.type === "text") return [{ type: "input_text", text: part.text }];
      if (part.type === "image-url") return [{ type: "input_image", image_url: part.url, detail: "auto" }];
      return part.type === "image" ? [{ type: "input_image", image_url: `data:${part.mimeType};base64,${part.data}`, detail: "auto" }] : [];
    });
  }
  return result;
}
