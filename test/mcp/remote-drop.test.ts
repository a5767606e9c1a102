import { ProtocolError, ProtocolErrorCode, SdkErrorCode, SdkHttpError, SseError } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { remoteDropOf } from "../../src/mcp/remote-drop.js";

/** What a remote server's request or stream met, as undici and the SDK report it. */
const fetchFailed = (code: string) => new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code }) });
const http = (status: number) => new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Streamable HTTP error: ${status}`, { status, statusText: "" });

describe("which failures of a remote server's connection are a drop", () => {
  it.each([
    ["a refused connection", fetchFailed("ECONNREFUSED"), false, "connection refused"],
    ["a socket closed by the other side", fetchFailed("UND_ERR_SOCKET"), false, "the connection was cut"],
    ["a reply cut off", new TypeError("terminated"), false, "the connection was cut"],
    ["a 404 to the session held", http(404), true, "the session ended (HTTP 404)"],
    ["a request's event stream broken under it", new ProtocolError(ProtocolErrorCode.InternalError, "cut", { fromTransport: true, streamEnd: "broke before the reply" }), false, "the connection was cut"],
    ["the legacy event stream failing", new SseError(undefined, "stream ended", undefined as unknown as ErrorEvent), false, "the event stream ended"],
    ["the event stream not reopened on a 404", new Error("Failed to reconnect SSE stream: Streamable HTTP error: Failed to open SSE stream: Not Found"), true, "the session ended (HTTP 404)"],
  ])("%s is one", (_, error, hadSession, words) => {
    expect(remoteDropOf({ error, hadSession })).toBe(words);
  });

  it.each([
    ["a 404 without a session (the server's own answer)", http(404), false],
    ["a 500", http(500), true],
    ["a 401 (a login, not a drop)", http(401), true],
    ["a stream that ended without the reply, the connection whole", new ProtocolError(ProtocolErrorCode.InternalError, "ended", { fromTransport: true, streamEnd: "ended without the reply" }), true],
    ["a JSON-RPC error of the server's", new ProtocolError(ProtocolErrorCode.InvalidParams, "bad"), true],
    ["an unreadable message", new SyntaxError("Unexpected token"), true],
  ])("%s is not", (_, error, hadSession) => {
    expect(remoteDropOf({ error, hadSession })).toBeUndefined();
  });
});
