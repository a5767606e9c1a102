import type { ServerResponse } from "node:http";
import type { TurnResult } from "../agent/events.js";
import type { ChatModel } from "../llm/types.js";
import type { Logger } from "./log.js";
import { turnLogFields, type TurnRunner } from "./turns.js";

/** What a chat completion and a Messages request are handed alike, and the headers and log line they share. */

export const TOOL_ACTIVITY_HEADER = "x-toolbridge-tool-activity";
export const SHADOWED_HEADER = "x-toolbridge-shadowed-tools";

export interface CompletionContext {
  body: unknown;
  res: ServerResponse;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  runner: TurnRunner;
  /** The model a request names; throws a 404 HttpError for one nobody serves. */
  model: (name: string) => Promise<ChatModel>;
  log: Logger;
  requestId: string;
  /** The request asked for tool activity by header. */
  toolActivityHeader: boolean;
  /** The betas the request's `anthropic-beta` header names (Messages API clients). */
  anthropicBetas: readonly string[];
}

/** One log line per turn; `what` names the API ("chat completion", "message"). */
export function logTurn(context: CompletionContext, turn: TurnResult, what = "chat completion"): void {
  context.log.log(turn.status === "failed" ? "warn" : "info", what, { requestId: context.requestId, ...turnLogFields(turn) });
}
