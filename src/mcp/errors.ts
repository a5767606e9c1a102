/**
 * Errors from the hub, as values the agent and CLI can act on. `message` is one line a
 * user can read; `server` names the server concerned where there is one.
 */
export type HubErrorCode =
  /** No tool has that exposed or qualified name. */
  | "unknown-tool"
  /** No server has that config key. */
  | "unknown-server"
  /** No server lists that resource URI (or matches it with a template). */
  | "unknown-resource"
  | "unknown-prompt"
  /** No connected server lists a skill of that name. */
  | "unknown-skill"
  /** A skill's file failed verification (digest, size, frontmatter) or is over the size bound: it was not loaded. */
  | "skill-refused"
  /** No connected server knows that task id. */
  | "unknown-task"
  /** More than one server offers the prompt or resource: pass the server. */
  | "ambiguous"
  /** The server failed to start, died and could not be restarted, or is disabled. */
  | "server-unavailable"
  | "timeout"
  | "cancelled"
  /** The server answered the request with a JSON-RPC error (or an unreadable result). */
  | "server-error"
  /** The hub was made without the feature asked for (roots). */
  | "unsupported"
  /** The server wants a (new) OAuth login: Hub.login, or `toolbridge auth login SERVER`. */
  | "needs-login"
  /** The hub was closed. */
  | "closed";

import type { CallToolResult } from "@modelcontextprotocol/client";
import { redactSecrets } from "../config/redact.js";

export class HubError extends Error {
  override readonly name = "HubError";
  constructor(
    readonly code: HubErrorCode,
    message: string,
    readonly details: { server?: string; cause?: unknown } = {},
  ) {
    super(redactSecrets(message), { cause: details.cause });
  }

  get server(): string | undefined {
    return this.details.server;
  }
}

const REPEATED_PREFIX = /^(MCP error -?\d+: )(?:MCP error -?\d+: )+/;

/**
 * A message with SDK 1.x's "MCP error CODE: " once: 1.x puts it before every McpError's message,
 * also one that has it already (an error a 1.x server relays from its own 1.x Client, or rewraps).
 */
export function onePrefix(message: string): string {
  return message.replace(REPEATED_PREFIX, "$1");
}

/** A tool's error result with each text's repeated prefix said once; the same object when there was none. */
export function toolErrorOnce(result: CallToolResult): CallToolResult {
  if (!result.isError || !result.content?.some((block) => block.type === "text" && REPEATED_PREFIX.test(block.text))) return result;
  return { ...result, content: result.content.map((block) => (block.type === "text" ? { ...block, text: onePrefix(block.text) } : block)) };
}
