import type { CallToolResult, Client, RequestOptions, Tool, Transport } from "@modelcontextprotocol/client";

/** Marks a tools/call of the host's that never leaves it: the Client gets the result held under this key as the answer. */
const LOCAL_RESULT_KEY = "dev.toolbridge/localResult";

/**
 * Holds a tool result the server gave outside a plain `tools/call` (a task's, in either form: SEP-1686's
 * `tasks/result` or the tasks extension's `tasks/get`) to the check the Client makes of a plain call's: the result
 * is put to the Client as the answer of a `tools/call` that never leaves the host, so SDK v2's own check of
 * `structuredContent` against the tool's outputSchema judges it, with the same errors. One per connection; each of
 * its transports is installed before use. Imports only the SDK.
 */
export class OutputSchemaCheck {
  private next = 0;
  private readonly results = new Map<string, Record<string, unknown>>();

  /** Answers the local tools/calls sent on `transport` (the rest go out as they are). */
  install(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const meta = "method" in message && "id" in message && message.method === "tools/call" ? (message.params?._meta as Record<string, unknown> | undefined) : undefined;
      const key = meta?.[LOCAL_RESULT_KEY];
      if (typeof key !== "string" || !("id" in message) || message.id === undefined) return send(message, options);
      const { id } = message;
      const result = this.results.get(key);
      queueMicrotask(() => transport.onmessage?.({ jsonrpc: "2.0", id, result: result ?? {} }));
      return Promise.resolve();
    };
  }

  /** `result` as the Client takes a plain call's of `tool`: held to its outputSchema, where it has one. */
  async checked(client: Client, tool: Tool | undefined, result: CallToolResult, options: RequestOptions): Promise<CallToolResult> {
    if (tool?.outputSchema === undefined) return result;
    const key = `local-${++this.next}`;
    this.results.set(key, client.getProtocolEra() === "modern" ? { ...result, resultType: "complete" } : result);
    try {
      return await client.callTool({ name: tool.name, arguments: {}, _meta: { [LOCAL_RESULT_KEY]: key } }, { ...options, toolDefinition: tool });
    } finally {
      this.results.delete(key);
    }
  }
}
