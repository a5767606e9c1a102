import type { ReplyBlock } from "./types.js";

/** A block the provider signed or redacted: it wants it back unchanged and in place, so a reply holding one keeps its blocks. */
export function isSealed(block: ReplyBlock): boolean {
  return block.type === "redacted-reasoning" || (block.type === "reasoning" && block.signature !== "");
}
