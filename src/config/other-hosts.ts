/**
 * Reads the few server-entry keys other hosts spell differently, so their files load
 * unchanged. Keys we have no use for (Cline's autoApprove, alwaysAllow, timeout; Gemini
 * CLI's trust, description) stay and are ignored by the schema.
 */
export function adoptOtherHostKeys(entry: Record<string, unknown>): Record<string, unknown> {
  const out = { ...entry };
  // Gemini CLI: `httpUrl` is a Streamable HTTP endpoint (its `url` is SSE, which ours
  // reaches by fallback anyway).
  if (out.url === undefined && typeof out.httpUrl === "string") {
    out.url = out.httpUrl;
    out.type ??= "http";
  }
  // Older Cline: `transportType: "sse" | "stdio"` where newer versions write `type`.
  if (out.type === undefined && out.transportType === "sse" && out.url !== undefined) out.type = "sse";
  // `"transport": "websocket"`, as some hosts write it.
  if (out.type === undefined && out.transport === "websocket") out.type = "websocket";
  return out;
}
