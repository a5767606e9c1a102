import { z } from "zod";
import type { ToolCall } from "../llm/types.js";
import { MAX_SEALED_CHARS } from "./thinking-blocks.js";

/**
 * A call's thought signature (Gemini's) carried inside the call's id, for clients with nowhere
 * else to put it: the Messages API's `tool_use` block has no field for it, and a client gives
 * back only what the block holds. Gemini 3 refuses a turn whose calls lost their signatures, so
 * the gateway hands out `<the call's id>__tbsig__<the signature, base64url>` and, when the id
 * comes back (on the `tool_use` block and as the `tool_result`'s `tool_use_id`), sends the
 * provider its own id again with the signature beside it. The id keeps to the letters, digits,
 * `_` and `-` Anthropic's ids are made of; a call without a signature keeps its id unchanged.
 */

const SEPARATOR = "__tbsig__";

/** The most characters a tool call id a client sends may hold: the bound of a thinking block sent back, as a signature is one's seal. */
export const MAX_CALL_ID_CHARS = MAX_SEALED_CHARS;

/** A tool call id as a client sends it back, bounded. */
export const CallIdSchema = z.string().max(MAX_CALL_ID_CHARS, `more than the ${MAX_CALL_ID_CHARS} characters a tool call id may hold`);

/**
 * The id a client gets for the call: with its signature in it when it has one. An id that
 * already holds the separator (none the gateway or Gemini makes), or one that would outgrow
 * the bound, stays as it is.
 */
export function signedCallId(call: ToolCall): string {
  if (!call.signature || call.id.includes(SEPARATOR)) return call.id;
  const signed = `${call.id}${SEPARATOR}${Buffer.from(call.signature, "utf8").toString("base64url")}`;
  return signed.length <= MAX_CALL_ID_CHARS ? signed : call.id;
}

/**
 * A client's call id as the provider made it, and the signature it carried. An id whose tail
 * is not one the gateway wrote (not canonical base64url of UTF-8 text) is taken as it is.
 */
export function unsignedCallId(id: string): { id: string; signature?: string } {
  const at = id.indexOf(SEPARATOR);
  if (at < 0) return { id };
  const tail = id.slice(at + SEPARATOR.length);
  const signature = Buffer.from(tail, "base64url").toString("utf8");
  if (signature === "" || Buffer.from(signature, "utf8").toString("base64url") !== tail) return { id };
  return { id: id.slice(0, at), signature };
}
