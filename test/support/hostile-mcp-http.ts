/**
 * TEST INFRASTRUCTURE: a hostile MCP server over HTTP, written by hand so it can break the
 * rules no SDK server breaks. It speaks enough Streamable HTTP (POST /mcp, GET /mcp) and
 * legacy HTTP+SSE (GET /sse, POST /messages) to initialize and list its tools; its tools
 * then misbehave:
 *   ping          answers "pong" (the control: is the client still responsive?)
 *   big-json      {mib} one JSON reply of mib MiB, streamed
 *   gzip-bomb     {mib} a gzip body of about mib/1000 MiB that inflates to mib MiB
 *   endless-sse   an SSE reply whose one `data:` line never ends
 * With `endlessGet`, the standalone GET stream (Streamable HTTP) sends one endless `data:` line
 * as soon as it opens; on legacy SSE, replies to endless-sse go down the one GET stream.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createGzip } from "node:zlib";
import { readBody } from "./read-body.js";

export interface HostileServerOptions {
  endlessGet?: boolean;
}

export interface HostileServer {
  /** The Streamable HTTP endpoint. */
  url: string;
  /** The legacy HTTP+SSE endpoint. */
  sseUrl: string;
  /** Bytes written on streams that never end, per stream, as they stand now. */
  endlessWrites(): number[];
  close(): Promise<void>;
}

const TOOLS = ["ping", "big-json", "gzip-bomb", "endless-sse"].map((name) => ({
  name,
  inputSchema: { type: "object", properties: { mib: { type: "number" } } },
}));
const MIB = 1024 * 1024;
const FILLER = Buffer.alloc(64 * 1024, "a");

interface JsonRpc {
  id?: string | number;
  method?: string;
  params?: { name?: string; arguments?: { mib?: number } };
}

export async function startHostileServer(options: HostileServerOptions = {}): Promise<HostileServer> {
  const endless: { written: number }[] = [];
  const legacyStreams = new Map<string, ServerResponse>();
  let sessions = 0;

  /** Writes `data: <prefix>aaaa...` for ever (until the peer goes), minding backpressure. */
  const writeEndless = (res: ServerResponse, prefix: string): void => {
    const record = { written: 0 };
    endless.push(record);
    res.write(`event: message\ndata: ${prefix}`);
    const pump = (): void => {
      while (!res.destroyed && !res.writableEnded) {
        record.written += FILLER.length;
        if (!res.write(FILLER)) {
          res.once("drain", pump);
          return;
        }
      }
    };
    pump();
  };

  const result = (id: JsonRpc["id"], value: unknown): string => JSON.stringify({ jsonrpc: "2.0", id, result: value });

  /** Answers one request, or returns undefined for a tool that writes its own reply. */
  const answer = (message: JsonRpc): string | undefined => {
    switch (message.method) {
      case "initialize":
        return result(message.id, {
          protocolVersion: "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "hostile", version: "1.0.0" },
        });
      case "tools/list":
        return result(message.id, { tools: TOOLS });
      case "tools/call":
        return message.params?.name === "ping" ? result(message.id, { content: [{ type: "text", text: "pong" }] }) : undefined;
      default:
        return JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no such method" } });
    }
  };

  const streamJson = (res: ServerResponse, id: JsonRpc["id"], mib: number, gzip: boolean): void => {
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`;
    const tail = `"}]}}`;
    res.writeHead(200, { "content-type": "application/json", ...(gzip ? { "content-encoding": "gzip" } : {}) });
    const sink = gzip ? createGzip() : res;
    if (gzip) (sink as ReturnType<typeof createGzip>).pipe(res);
    let left = Math.ceil((mib * MIB) / FILLER.length);
    sink.write(head);
    const pump = (): void => {
      while (left > 0 && !res.destroyed) {
        left--;
        if (!sink.write(FILLER)) {
          sink.once("drain", pump);
          return;
        }
      }
      if (!res.destroyed) sink.end(tail);
    };
    pump();
  };

  const onPost = async (req: IncomingMessage, res: ServerResponse, legacy: ServerResponse | undefined): Promise<void> => {
    const message = JSON.parse(await readBody(req)) as JsonRpc;
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const text = answer(message);
    const tool = message.params?.name;
    if (legacy) {
      res.writeHead(202).end();
      if (text !== undefined) legacy.write(`event: message\ndata: ${text}\n\n`);
      else if (tool === "endless-sse") writeEndless(legacy, `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[{"type":"text","text":"`);
      return;
    }
    if (text !== undefined) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (message.method === "initialize") headers["mcp-session-id"] = `session-${++sessions}`;
      res.writeHead(200, headers).end(text);
    } else if (tool === "big-json" || tool === "gzip-bomb") {
      streamJson(res, message.id, message.params?.arguments?.mib ?? 300, tool === "gzip-bomb");
    } else {
      res.writeHead(200, { "content-type": "text/event-stream" });
      writeEndless(res, `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[{"type":"text","text":"`);
    }
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (path === "/mcp" && req.method === "POST") {
      onPost(req, res, undefined).catch(() => res.destroy());
    } else if (path === "/mcp" && req.method === "GET") {
      if (!options.endlessGet) {
        res.writeHead(405).end();
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      writeEndless(res, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`);
    } else if (path === "/mcp" && req.method === "DELETE") {
      res.writeHead(200).end();
    } else if (path === "/sse" && req.method === "GET") {
      const session = `legacy-${++sessions}`;
      legacyStreams.set(session, res);
      res.on("close", () => legacyStreams.delete(session));
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`event: endpoint\ndata: /messages?session=${session}\n\n`);
    } else if (path === "/messages" && req.method === "POST") {
      const stream = legacyStreams.get(new URL(req.url ?? "/", "http://127.0.0.1").searchParams.get("session") ?? "");
      if (!stream) res.writeHead(404).end();
      else onPost(req, res, stream).catch(() => res.destroy());
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sseUrl: `http://127.0.0.1:${port}/sse`,
    endlessWrites: () => endless.map((record) => record.written),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
