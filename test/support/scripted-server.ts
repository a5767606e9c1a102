/**
 * TEST INFRASTRUCTURE: what the scripted model servers share: listening on loopback,
 * reading each JSON body whole, recording every request, and a close that also drops the
 * connections of replies that hang.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody } from "./read-body.js";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body (undefined for GET). */
  body: any;
}

export interface ScriptedServerOptions {
  /** Record the path with its query string (default: without). */
  keepQuery?: boolean;
  /** How a handler that throws before answering answers (default: a 500 saying so). */
  onFailure?: (res: ServerResponse, err: unknown) => void;
}

export interface ScriptedServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function listenScripted(
  handle: (request: RecordedRequest, res: ServerResponse) => Promise<void>,
  options: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const fail = options.onFailure ?? failWith500;

  async function record(req: IncomingMessage): Promise<RecordedRequest> {
    const url = req.url ?? "/";
    const path = options.keepQuery ? url : (url.split("?")[0] ?? "/");
    const raw = await readBody(req);
    const request = { method: req.method ?? "GET", path, headers: req.headers, body: raw ? JSON.parse(raw) : undefined };
    requests.push(request);
    return request;
  }

  const server = createServer((req, res) => {
    void record(req)
      .then((request) => handle(request, res))
      .catch((err: unknown) => {
        if (!res.headersSent) fail(res, err);
        else res.destroy();
      });
  });
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function failWith500(res: ServerResponse, err: unknown): void {
  res.writeHead(500, { "content-type": "text/plain" });
  res.end(`test server failure: ${String(err)}`);
}
