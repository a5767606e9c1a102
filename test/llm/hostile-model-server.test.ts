import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { LlmError } from "../../src/llm/errors.js";
import { OpenAICompatibleModel } from "../../src/llm/openai-compatible.js";
import type { ChatRequest } from "../../src/llm/types.js";
import { freePort } from "../support/free-port.js";
import { collect, failure } from "./collect.js";

/** A model server that answers what a stream-reading client does not expect: web pages, huge bodies, plain JSON. */

let server: Server | undefined;
let requests: { url: string; headers: IncomingMessage["headers"] }[] = [];
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
  requests = [];
});

async function serving(handler: (res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    requests.push({ url: req.url ?? "", headers: req.headers });
    req.resume();
    req.on("end", () => handler(res));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
}

const ask: ChatRequest = { messages: [{ role: "user", content: "hi" }] };
const model = (baseURL: string) => new OpenAICompatibleModel({ baseURL, model: "m", retry: { baseDelayMs: 1 } });

function page(status: number, title: string) {
  return (res: ServerResponse) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!DOCTYPE html>\n<html><head><title>${title}</title></head>\n<body><h1>${title}</h1>${"<p>details</p>\n".repeat(500)}</body></html>`);
  };
}

describe("a model server's error pages and bodies", () => {
  it("an HTML 404 is summarised in one line by its title, not printed", async () => {
    const url = await serving(page(404, "404 Not Found"));
    const err = (await failure(model(url).stream(ask))) as LlmError;
    expect(err.message).toBe(`not an OpenAI-compatible API (got text/html "404 Not Found" from ${url}, HTTP 404); check the base URL (--base-url)`);
  });

  it("an HTML 501 is summarised and not retried", async () => {
    const url = await serving(page(501, "Error response"));
    const err = (await failure(model(url).stream(ask))) as LlmError;
    expect(err.message).toContain(`got text/html "Error response" from ${url}, HTTP 501`);
    expect(err.message).not.toContain("<");
    expect(requests).toHaveLength(1);
  });

  it("a JSON 501 is not retried either", async () => {
    const url = await serving((res) => {
      res.writeHead(501, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "streaming is not implemented" } }));
    });
    const err = (await failure(model(url).stream(ask))) as LlmError;
    expect(err.message).toContain("HTTP 501: streaming is not implemented");
    expect(requests).toHaveLength(1);
  });

  it("a 100 KB error body is one bounded line", async () => {
    const url = await serving((res) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `bad request ${"x".repeat(100_000)}` } }));
    });
    const err = (await failure(model(url).stream(ask))) as LlmError;
    expect(err.message).toMatch(/HTTP 400: bad request x+… \(cut\)$/);
    expect(err.message.length).toBeLessThan(600);
    expect(err.message).not.toContain("\n");
  });

  it("a 100 KB plain-text error body is one bounded line too", async () => {
    const url = await serving((res) => {
      res.writeHead(400, { "content-type": "text/plain" });
      res.end("line of text\n".repeat(8000));
    });
    const err = (await failure(model(url).stream(ask))) as LlmError;
    expect(err.message.length).toBeLessThan(600);
    expect(err.message).not.toContain("\n");
  });
});

describe("a server that does not stream", () => {
  it("a non-streamed chat.completion (JSON) is read as the answer: text, tool calls, usage", async () => {
    const url = await serving((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "c1",
          object: "chat.completion",
          created: 1,
          model: "m",
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: "Let me check.", tool_calls: [{ id: "call_1", type: "function", function: { name: "get-date", arguments: '{"format":"iso"}' } }] },
              finish_reason: "tool_calls",
            },
          ],
          usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
        }),
      );
    });
    const out = await collect(model(url).stream(ask));
    expect(out.text).toBe("Let me check.");
    expect(out.calls).toEqual([expect.objectContaining({ id: "call_1", name: "get-date", arguments: '{"format":"iso"}' })]);
    expect(out.finish).toBe("tool-calls");
    expect(out.events).toContainEqual({ type: "usage", usage: { inputTokens: 5, outputTokens: 7, totalTokens: 12 } });
  });
});

describe("a base URL with credentials", () => {
  it("sends them as Basic auth (fetch refuses them in the URL), never printing them", async () => {
    const url = await serving((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`);
    });
    const out = await collect(model(url.replace("http://", "http://alice:s%40cret@")).stream(ask));
    expect(out.text).toBe("ok");
    expect(requests[0]?.headers.authorization).toBe(`Basic ${Buffer.from("alice:s@cret").toString("base64")}`);
  });

  it("that cannot be reached is not told to start vLLM, and its password is not shown", async () => {
    const port = await freePort();
    const err = (await failure(new OpenAICompatibleModel({ baseURL: `http://alice:secret@127.0.0.1:${port}/v1`, model: "m", retry: { maxRetries: 0 } }).stream(ask))) as LlmError;
    expect(err.code).toBe("connection");
    expect(err.message).toContain("connection refused");
    expect(err.message).not.toContain("vllm serve");
    expect(err.message).not.toContain("secret");
  });
});
