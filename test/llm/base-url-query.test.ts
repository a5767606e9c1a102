import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { listModelInfo, normalizeBaseURL } from "../../src/llm/discovery.js";
import { endpointUrl } from "../../src/llm/endpoint-url.js";
import { OpenAICompatibleModel } from "../../src/llm/openai-compatible.js";
import { failure } from "./collect.js";

/** A base URL's query value a gateway takes as its key. */
const SECRET = "s3cret-query-value";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** Lists one model at /v1/models; anything else is a 404 whose message echoes the URL asked for, query and all. */
async function echoingServer(): Promise<{ base: string; asked: string[] }> {
  const asked: string[] = [];
  server = createServer((req, res) => {
    asked.push(req.url ?? "");
    req.resume();
    res.setHeader("content-type", "application/json");
    if ((req.url ?? "").split("?")[0] === "/v1/models") return res.end(JSON.stringify({ object: "list", data: [{ id: "m", object: "model" }] }));
    res.statusCode = 404;
    res.end(JSON.stringify({ error: { message: `no route for ${req.url}`, type: "not_found", code: 404 } }));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { base: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1?key=${SECRET}`, asked };
}

describe("a base URL with a query", () => {
  it("joins an endpoint's path before the query, never inside it", () => {
    expect(endpointUrl("https://h.example/openai?api-version=2024-06-01", "/models")).toBe("https://h.example/openai/models?api-version=2024-06-01");
    expect(normalizeBaseURL("http://10.0.0.2:8000?key=abc")).toBe("http://10.0.0.2:8000/v1?key=abc");
    expect(normalizeBaseURL("http://10.0.0.2:8000/proxy/?key=abc")).toBe("http://10.0.0.2:8000/proxy/?key=abc");
  });

  it("asks /models and /chat/completions with the query kept, and never prints the query's value", async () => {
    const { base, asked } = await echoingServer();
    expect((await listModelInfo(base, undefined, 5000)).map((m) => m.id)).toEqual(["m"]);
    const model = new OpenAICompatibleModel({ baseURL: base, model: "m", retry: { maxRetries: 0 } });
    const err = (await failure(model.stream({ messages: [{ role: "user", content: "hi" }] }))) as Error;
    expect(asked).toEqual([`/v1/models?key=${SECRET}`, `/v1/chat/completions?key=${SECRET}`]);
    expect(err.message).toContain("no route for /v1/chat/completions?key=");
    expect(err.message).not.toContain(SECRET);
  });

  it("masks a credential in the query, but not a version", async () => {
    const { base } = await echoingServer();
    const model = new OpenAICompatibleModel({ baseURL: `${base}&api-version=2031-02-03`, model: "m", retry: { maxRetries: 0 } });
    const err = (await failure(model.stream({ messages: [{ role: "user", content: "hi" }] }))) as Error;
    expect(err.message).toContain("api-version=2031-02-03");
    expect(err.message).not.toContain(SECRET);
  });
});
