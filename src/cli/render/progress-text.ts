import type { Progress } from "../../mcp/types.js";

/** `40% copying files`, or `12 copying files` when the server gives no total (not yet cleaned). */
export function progressText({ progress, total, message }: Progress): string {
  const amount = total ? `${Math.round((progress / total) * 100)}%` : String(progress);
  return message ? `${amount} ${message}` : amount;
}
