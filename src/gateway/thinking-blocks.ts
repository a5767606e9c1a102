import { z } from "zod";
import type { AgentEvent } from "../agent/events.js";
import type { ReplyBlock } from "../llm/types.js";

/**
 * Signed and redacted reasoning as the gateway's APIs hand it to clients and take it back. A
 * provider that signs its thinking (Anthropic) refuses a tool-using turn whose thinking comes
 * back altered or missing, so a client must be able to carry it: the Messages API has blocks of
 * its own for it, chat completions carries them as `thinking_blocks` (LiteLLM's field, in
 * Anthropic's block shapes), Responses as a reasoning item's opaque `encrypted_content`.
 */

/** The most a thinking block a client sends back may hold, in characters (its text, signature or data), or an `encrypted_content` of the gateway's. */
export const MAX_SEALED_CHARS = 4 * 1024 * 1024;
/** The most thinking blocks one assistant message may carry. */
export const MAX_THINKING_BLOCKS = 1000;
const bounded = z.string().max(MAX_SEALED_CHARS, `more than the ${MAX_SEALED_CHARS} characters a thinking block may hold`);

export const ThinkingBlockSchema = z.looseObject({ type: z.literal("thinking"), thinking: bounded, signature: bounded.optional() });
export const RedactedThinkingBlockSchema = z.looseObject({ type: z.literal("redacted_thinking"), data: bounded });
/** A thinking block as a client sends it back: chat completions' `thinking_blocks` entry, a Messages assistant block. */
export const ClientThinkingBlockSchema = z.discriminatedUnion("type", [ThinkingBlockSchema, RedactedThinkingBlockSchema]);

export type ThinkingBlock = { type: "thinking"; thinking: string; signature: string } | { type: "redacted_thinking"; data: string };

export function toReplyBlock(block: ThinkingBlock | z.infer<typeof ClientThinkingBlockSchema>): Extract<ReplyBlock, { type: "reasoning" | "redacted-reasoning" }> {
  return block.type === "thinking" ? { type: "reasoning", text: block.thinking, signature: block.signature ?? "" } : { type: "redacted-reasoning", data: block.data };
}

/**
 * The thinking blocks a turn's events make, each complete once its signature (or its redacted
 * data) came: what the agent's conversation keeps of them (see the agent's reply blocks).
 */
export class ThinkingBlocks {
  readonly blocks: ThinkingBlock[] = [];
  private text = "";

  /** The block the event completes, if any. */
  add(event: AgentEvent): ThinkingBlock | undefined {
    switch (event.type) {
      case "reasoning-delta":
        this.text += event.text;
        return undefined;
      case "reasoning-signature":
        return this.push({ type: "thinking", thinking: this.text, signature: event.signature });
      case "reasoning-redacted":
        return this.push({ type: "redacted_thinking", data: event.data });
      case "model-request":
      case "text-delta":
      case "tool-call-written":
        // Thinking after these is a block of its own.
        this.text = "";
        return undefined;
      default:
        return undefined;
    }
  }

  private push(block: ThinkingBlock): ThinkingBlock {
    this.text = "";
    this.blocks.push(block);
    return block;
  }
}

const SEAL_PREFIX = "tbr1.";
const SealSchema = z.union([z.strictObject({ thinking: z.string(), signature: z.string().min(1) }), z.strictObject({ redacted: z.string() })]);

/**
 * A thinking block as a Responses reasoning item's `encrypted_content`: opaque to the client,
 * not encrypted (the provider's signature is what guards the thinking), versioned so an item
 * from another service is told apart.
 */
export function sealBlock(block: ThinkingBlock): string {
  const body = block.type === "thinking" ? { thinking: block.thinking, signature: block.signature } : { redacted: block.data };
  return SEAL_PREFIX + Buffer.from(JSON.stringify(body)).toString("base64url");
}

/**
 * The block an `encrypted_content` holds: undefined for one the gateway did not make (another
 * service's, which no model behind the gateway could read); an Error for one of the gateway's
 * that was cut, altered or is too large.
 */
export function unsealBlock(sealed: string): Extract<ReplyBlock, { type: "reasoning" | "redacted-reasoning" }> | Error | undefined {
  if (!sealed.startsWith(SEAL_PREFIX)) return undefined;
  if (sealed.length > MAX_SEALED_CHARS) return new Error(`holds ${sealed.length} characters, more than the ${MAX_SEALED_CHARS} a reasoning item may`);
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(sealed.slice(SEAL_PREFIX.length), "base64url").toString("utf8"));
  } catch {
    json = undefined;
  }
  const parsed = SealSchema.safeParse(json);
  if (!parsed.success) return new Error("is not reasoning this gateway gave out, or was altered; send it back as it came");
  const body = parsed.data;
  return "redacted" in body ? { type: "redacted-reasoning", data: body.redacted } : { type: "reasoning", text: body.thinking, signature: body.signature };
}
