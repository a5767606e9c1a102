/**
 * The size bound of one message from an MCP server, whatever the transport: a reply or
 * notification larger than this fails with messageTooLarge()'s line instead of filling memory.
 * Generous: server-filesystem reading a 6 MB file sends more than 10 MiB.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

const MIB = 1024 * 1024;

/**
 * The one line for a reply over the limit. `exact` is false when the reply was cut as soon
 * as it passed the limit, so its whole size is unknown.
 */
export function messageTooLarge(bytes: number, limit: number, exact = true): string {
  return `the reply of ${exact ? "" : "more than "}${formatMiB(bytes)} exceeds the limit (maxMessageBytes ${formatMiB(limit)})`;
}

/** Sizes as a person reads them: MiB with at most one decimal, or bytes under 1 MiB. */
export function formatMiB(bytes: number): string {
  if (bytes < MIB) return `${bytes} bytes`;
  return `${(Math.floor((bytes / MIB) * 10) / 10).toFixed(1).replace(/\.0$/, "")} MiB`;
}

/** A message over the limit, as thrown into the SDK's transports and recognised in the hub. */
export class MessageTooLargeError extends Error {
  override readonly name = "MessageTooLargeError";
  constructor(
    readonly bytes: number,
    readonly limit: number,
    exact = true,
  ) {
    super(messageTooLarge(bytes, limit, exact));
  }
}
