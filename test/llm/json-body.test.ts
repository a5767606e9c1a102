import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { jsonBody } from "../../src/llm/json-body.js";
import { OpenAICompatibleModel } from "../../src/llm/openai-compatible.js";
import { collect } from "./collect.js";

async function text(body: string | ReadableStream<Uint8Array>): Promise<{ text: string; pieces: number; largest: number }> {
  if (typeof body === "string") return { text: body, pieces: 1, largest: body.length };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
  return { text: Buffer.concat(chunks).toString("utf8"), pieces: chunks.length, largest: Math.max(...chunks.map((chunk) => chunk.length)) };
}

describe("jsonBody", () => {
  it("a small body is the one string JSON.stringify writes, with its length in bytes", () => {
    const value = { model: "m", messages: [{ role: "user", content: "héllo" }], skip: undefined, stream: true };
    expect(jsonBody(value)).toEqual({ body: JSON.stringify(value), length: Buffer.byteLength(JSON.stringify(value)) });
  });

  it("a conversation of megabytes is streamed in small pieces, and reads back as JSON.stringify writes it", async () => {
    // Escapes, two-byte and four-byte characters, a surrogate pair on every slice boundary, and every kind of value.
    const long = `${"a\"b\\c\n\u0001é".repeat(100_000)}${"x😀".repeat(300_000)}`;
    const value = {
      model: "m",
      messages: [
        { role: "user", content: "hi", name: undefined },
        { role: "assistant", content: long, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: '{"a":1}' } }] },
        { role: "tool", content: [{ type: "text", text: long.slice(7) }], tool_call_id: "c" },
      ],
      when: new Date(0),
      list: [1, null, undefined, () => 1, true, -0.5, {}, []],
      stream: true,
    };
    const { body, length } = jsonBody(value);
    expect(body).toBeInstanceOf(ReadableStream);
    const sent = await text(body);
    expect(sent.text).toBe(JSON.stringify(value));
    expect(length).toBe(Buffer.byteLength(sent.text));
    expect(sent.pieces).toBeGreaterThan(50);
    expect(sent.largest).toBeLessThan(1024 * 1024);
  });
});

describe("a chat request of megabytes", () => {
  it("reaches the model server whole, with its Content-Length and not chunked, leaving no listeners behind", async () => {
    // Node warns of a likely listener leak once an emitter holds 11 listeners for one event.
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on("warning", onWarning);
    let received: { length: string | undefined; chunked: boolean; body: unknown } | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received = { length: req.headers["content-length"], chunked: req.headers["transfer-encoding"] !== undefined, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const model = new OpenAICompatibleModel({ baseURL: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, model: "m" });
      const long = "é".repeat(3 * 1024 * 1024);
      const answer = await collect(model.stream({ messages: [{ role: "user", content: long }] }));
      expect(answer.text).toBe("ok");
      expect(received?.chunked).toBe(false);
      expect(Number(received?.length)).toBe(Buffer.byteLength(JSON.stringify(received?.body)));
      expect((received?.body as { messages: { content: string }[] }).messages[0]?.content).toBe(long);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
