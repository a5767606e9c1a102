import { SdkHttpError, SseError } from "@modelcontextprotocol/client";
import { onePrefix } from "../errors.js";
import { probeFailure } from "./era.js";

/** One line from any error, with the network cause fetch hides under "fetch failed". */
export function describe(error: unknown): string {
  error = probeFailure(error);
  if (!(error instanceof Error)) return String(error);
  const status = error instanceof SdkHttpError ? error.status : error instanceof SseError ? error.code : undefined;
  if (typeof status === "number" && status > 0) {
    const message = error.message.replace(/^(Streamable HTTP error|SSE error): /, "");
    return `HTTP ${status}: ${message}`.replace(/\s*\n\s*/g, " ").slice(0, 500);
  }
  const cause = error.cause;
  const causeText =
    cause instanceof Error && error.message === "fetch failed" ? `: ${(cause as NodeJS.ErrnoException).code ?? cause.message}` : "";
  const message = onePrefix(error.message);
  return `${message}${causeText}`.replace(/\s*\n\s*/g, " ").slice(0, 500);
}
