import WebSocket from "ws";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { MessageTooLargeError } from "../limits.js";
import { withTimeout } from "../time-limit.js";

export interface WebSocketOptions {
  /** Sent with the opening handshake (Authorization, say), as HTTP servers' headers are. */
  headers?: Record<string, string>;
  /** A frame over this is refused: the socket is closed (1009), as RFC 6455 has it, with one line saying why. */
  maxMessageBytes: number;
  /** How long the opening handshake may take. */
  handshakeTimeoutMs: number;
}

/** The subprotocol MCP's WebSocket servers (the Python SDK's mcp.server.websocket) agree to. */
const SUBPROTOCOL = "mcp";
/** How long a closing handshake may take before the socket is cut. */
const CLOSE_GRACE_MS = 1000;

/**
 * MCP over a WebSocket: one JSON-RPC message per text frame, subprotocol "mcp". The SDK v2 client ships no
 * WebSocket transport, and Node 20 has no global WebSocket: this is `ws` under the SDK's Transport seam.
 */
export class WebSocketClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Why the socket closed, when we closed it for the server's fault (a frame over maxMessageBytes). */
  closeReason: string | undefined;

  private socket: WebSocket | undefined;

  constructor(
    private readonly url: URL,
    private readonly options: WebSocketOptions,
  ) {}

  start(): Promise<void> {
    if (this.socket) throw new Error("WebSocketClientTransport already started");
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, SUBPROTOCOL, {
        ...(this.options.headers ? { headers: this.options.headers } : {}),
        maxPayload: this.options.maxMessageBytes,
        handshakeTimeout: this.options.handshakeTimeoutMs,
        // A redirect would carry the headers (credentials) to wherever the server says.
        followRedirects: false,
      });
      this.socket = socket;
      let opened = false;
      // ws fails the handshake of a server that agrees to no subprotocol, or another.
      socket.once("open", () => {
        opened = true;
        resolve();
      });
      socket.on("message", (data, isBinary) => this.receive(data, isBinary));
      socket.on("error", (error: Error & { code?: string }) => {
        if (error.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") {
          // ws closes the socket (1009) on such a frame: the waiting requests fail with this line, not "closed".
          this.closeReason = new MessageTooLargeError(this.options.maxMessageBytes, this.options.maxMessageBytes, false).message;
          this.onerror?.(new Error(this.closeReason));
          return;
        }
        if (!opened) reject(error);
        else this.onerror?.(error);
      });
      socket.once("close", () => {
        if (!opened) reject(new SdkError(SdkErrorCode.ConnectionClosed, "the server closed the WebSocket during the handshake"));
        this.onclose?.();
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = this.socket;
      if (!socket || socket.readyState !== WebSocket.OPEN) {
        // The SDK's own error for it, as the stdio transport gives, so a request sent after a drop reads as one.
        reject(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed"));
        return;
      }
      socket.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** The closing handshake, bounded: a server that does not answer it has its socket cut. */
  async close(): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<boolean>((done) => socket.once("close", () => done(true)));
    socket.close(1000);
    if ((await withTimeout(closed, CLOSE_GRACE_MS)) === undefined) socket.terminate();
  }

  /** Only whether the frame is a JSON-RPC 2.0 object, as on stdio: the client checks each message against the SDK's schemas. */
  private receive(data: WebSocket.RawData, isBinary: boolean): void {
    if (isBinary) {
      this.onerror?.(new SyntaxError("a binary frame, where MCP sends text frames"));
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(data.toString());
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    if (typeof message !== "object" || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== "2.0") {
      this.onerror?.(new SyntaxError("a frame that is not a JSON-RPC 2.0 message"));
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }
}
