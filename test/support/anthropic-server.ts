/**
 * TEST INFRASTRUCTURE ONLY: a scripted stand-in for Anthropic's `POST /v1/messages`
 * (stream: true), in the API's real event shapes: `event: <type>\ndata: <json>\n\n` for
 * message_start (usage.input_tokens), ping, content_block_start / content_block_delta
 * (text_delta, thinking_delta + signature_delta, input_json_delta starting with an empty
 * partial_json) / content_block_stop, message_delta (stop_reason, usage.output_tokens),
 * message_stop; errors as `{"type":"error","error":{"type","message"}}`, also mid-stream
 * as an `event: error`.
 *
 * Like the real API, with `thinking` on it refuses (400, before taking a reply) a budget not
 * below `max_tokens`, and a conversation whose last assistant turn used tools without first
 * giving back, whole, a thinking block this server signed; and, for a turn this server made,
 * one whose thinking and redacted_thinking blocks were dropped, altered or moved among its
 * tool_use blocks. A reply of `blocks` may hold redacted thinking (a content_block_start with
 * its `data`, no deltas) and thinking between tool_use blocks, which the server sends only
 * when the request named the `interleaved-thinking-2025-05-14` beta (else it fails the test
 * with a 500 saying so).
 *
 *   const server = await startAnthropicServer({ replies: [{ text: "Hi" }] });
 *   new AnthropicModel({ baseURL: server.url, apiKey: "test", model: "claude-haiku-4-5" });
 */
import type { ServerResponse } from "node:http";
import { listenScripted, type RecordedRequest, type ScriptedServer } from "./scripted-server.js";

/** One block of a reply, in order. */
export type AnthropicBlock =
  | { thinking: string }
  | { redacted: string }
  | { text: string }
  | { toolUse: { name: string; input: Record<string, unknown>; id?: string } };

export interface AnthropicReply {
  kind?: "reply";
  /** The reply's blocks in order, in place of `thinking`, `text` and `toolUses`. */
  blocks?: AnthropicBlock[];
  thinking?: string;
  text?: string;
  toolUses?: Array<{ name: string; input: Record<string, unknown>; id?: string }>;
  stopReason?: string;
  usage?: { input_tokens: number; output_tokens: number };
  /** Send an `event: error` (overloaded_error) after this many events instead of the rest. */
  errorAfterEvents?: number;
}
export interface AnthropicErrorReply {
  kind: "error";
  status: number;
  type: string;
  message: string;
}
export type AnthropicScriptReply = AnthropicReply | AnthropicErrorReply | { kind: "hang" };

/** `url` is the base URL to give the SDK (it adds `/v1/messages`). */
export type AnthropicServer = ScriptedServer;

export async function startAnthropicServer(options: { replies: AnthropicScriptReply[] }): Promise<AnthropicServer> {
  const script = [...options.replies];
  let counter = 0;
  // What each reply that used tools held, by its first tool_use id: its thinking, redacted_thinking and tool_use blocks in order.
  const made = new Map<string, string[]>();

  async function handle({ method, path, headers, body }: RecordedRequest, res: ServerResponse): Promise<void> {
    if (method !== "POST" || path !== "/v1/messages") return sendError(res, 404, "not_found_error", "Not found");
    const refusal = thinkingRefusal(body, made);
    if (refusal) return sendError(res, 400, "invalid_request_error", refusal);
    const reply = script.shift();
    if (!reply) return sendError(res, 500, "api_error", "scripted Anthropic server: no reply left in the script");
    if (reply.kind === "hang") return;
    if (reply.kind === "error") return sendError(res, reply.status, reply.type, reply.message);

    const id = `msg_${(++counter).toString().padStart(24, "0")}`;
    const usage = reply.usage ?? { input_tokens: 25, output_tokens: 12 };
    const events: Array<[string, unknown]> = [];
    events.push([
      "message_start",
      {
        type: "message_start",
        message: {
          id, type: "message", role: "assistant", model: body?.model, content: [], stop_reason: null, stop_sequence: null,
          usage: { input_tokens: usage.input_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, service_tier: "standard" },
        },
      },
    ]);
    events.push(["ping", { type: "ping" }]);
    let index = 0;
    const block = (start: unknown, deltas: unknown[]) => {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: start }]);
      for (const delta of deltas) events.push(["content_block_delta", { type: "content_block_delta", index, delta }]);
      events.push(["content_block_stop", { type: "content_block_stop", index }]);
      index++;
    };
    const blocks: AnthropicBlock[] = reply.blocks ?? [
      ...(reply.thinking ? [{ thinking: reply.thinking }] : []),
      ...(reply.text ? [{ text: reply.text }] : []),
      ...(reply.toolUses ?? []).map((toolUse) => ({ toolUse })),
    ];
    const firstUse = blocks.findIndex((b) => "toolUse" in b);
    const interleaved = firstUse >= 0 && blocks.slice(firstUse).some((b) => "thinking" in b || "redacted" in b);
    const betas = String(headers["anthropic-beta"] ?? "").split(",");
    if (interleaved && !betas.includes("interleaved-thinking-2025-05-14") && body?.thinking?.type !== "adaptive") {
      return sendError(res, 500, "api_error", "scripted Anthropic server: thinking between tool_use blocks needs the interleaved-thinking-2025-05-14 beta");
    }
    const keys: string[] = [];
    for (const [i, b] of blocks.entries()) {
      if ("thinking" in b) {
        keys.push(`thinking:${signatureOf(b.thinking)}`);
        block({ type: "thinking", thinking: "", signature: "" }, [
          ...pieces(b.thinking).map((thinking) => ({ type: "thinking_delta", thinking })),
          { type: "signature_delta", signature: signatureOf(b.thinking) },
        ]);
      } else if ("redacted" in b) {
        keys.push(`redacted_thinking:${b.redacted}`);
        block({ type: "redacted_thinking", data: b.redacted }, []);
      } else if ("text" in b) {
        block({ type: "text", text: "" }, pieces(b.text).map((text) => ({ type: "text_delta", text })));
      } else {
        const id = b.toolUse.id ?? `toolu_01${i}${"A".repeat(21)}`;
        keys.push(`tool_use:${id}`);
        const json = JSON.stringify(b.toolUse.input);
        block({ type: "tool_use", id, name: b.toolUse.name, input: {} }, [
          { type: "input_json_delta", partial_json: "" },
          ...pieces(json, 5).map((partial_json) => ({ type: "input_json_delta", partial_json })),
        ]);
      }
    }
    const firstKey = keys.find((key) => key.startsWith("tool_use:"));
    if (firstKey) made.set(firstKey, keys);
    const stopReason = reply.stopReason ?? (firstUse >= 0 ? "tool_use" : "end_turn");
    events.push([
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { input_tokens: usage.input_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: usage.output_tokens },
      },
    ]);
    events.push(["message_stop", { type: "message_stop" }]);

    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "request-id": `req_${id}` });
    for (const [i, [name, data]] of events.entries()) {
      if (reply.errorAfterEvents !== undefined && i >= reply.errorAfterEvents) {
        res.write(`event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`);
        break;
      }
      res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    }
    res.end();
  }

  return listenScripted(handle);
}

/** Redacted thinking as the real API sends it: opaque data. */
export const REDACTED_THINKING = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3";

/** A reply that thinks, redacts, calls get_weather for Taipei, thinks again and calls it for Tainan (interleaved thinking). */
export const INTERLEAVED_WEATHER_CALLS: AnthropicReply = {
  blocks: [
    { thinking: "Taipei first." },
    { redacted: REDACTED_THINKING },
    { toolUse: { name: "get_weather", input: { city: "Taipei" }, id: "toolu_taipei" } },
    { thinking: "Then Tainan." },
    { toolUse: { name: "get_weather", input: { city: "Tainan" }, id: "toolu_tainan" } },
  ],
};

/** The signature this server gives a thinking text (the real API's is opaque; this one is checked the same way). */
export function signatureOf(thinking: string): string {
  return `EqQBCgIYAh${Buffer.from(thinking).toString("base64")}`;
}

interface WireBlock {
  type: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
}

/** A block as `made` records it; undefined for blocks the check passes over (text). */
function keyOf(block: WireBlock): string | undefined {
  if (block.type === "thinking") return `thinking:${block.signature}`;
  if (block.type === "redacted_thinking") return `redacted_thinking:${block.data}`;
  if (block.type === "tool_use") return `tool_use:${block.id}`;
  return undefined;
}

function thinkingRefusal(
  body: { thinking?: { type: string; budget_tokens?: number }; max_tokens?: number; messages?: Array<{ role: string; content: string | WireBlock[] }> } | undefined,
  made: ReadonlyMap<string, string[]>,
): string | undefined {
  const thinking = body?.thinking;
  if (!thinking || thinking.type === "disabled") return undefined;
  if (thinking.budget_tokens !== undefined && thinking.budget_tokens >= (body?.max_tokens ?? 0)) return "`max_tokens` must be greater than `thinking.budget_tokens`";
  const messages = body?.messages ?? [];
  const at = messages.findLastIndex((message) => message.role === "assistant");
  const last = messages[at];
  if (!last || typeof last.content === "string" || !last.content.some((block) => block.type === "tool_use")) return undefined;
  const content = last.content;
  const forged = content.findIndex((block) => block.type === "thinking" && block.signature !== signatureOf(block.thinking ?? ""));
  if (forged >= 0) return `messages.${at}.content.${forged}: Invalid \`signature\` in \`thinking\` block`;
  const first = content[0];
  if (first?.type !== "thinking" && first?.type !== "redacted_thinking") {
    return `Expected \`thinking\` or \`redacted_thinking\`, but found \`${first?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block`;
  }
  // A turn this server made must come back with its thinking as it was, in place.
  const keys = content.map(keyOf).filter((key) => key !== undefined);
  const original = made.get(keys.find((key) => key.startsWith("tool_use:")) ?? "");
  if (original && JSON.stringify(keys) !== JSON.stringify(original)) {
    return `messages.${at}.content: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`;
  }
  return undefined;
}

function pieces(text: string, size = 8): string[] {
  return Array.from(text).reduce<string[]>((out, ch, i) => {
    if (i % size === 0) out.push(ch);
    else out[out.length - 1] += ch;
    return out;
  }, []);
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { "content-type": "application/json", "request-id": "req_error" });
  res.end(JSON.stringify({ type: "error", error: { type, message }, request_id: "req_error" }));
}
