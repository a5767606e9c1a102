import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createNetServer, type Socket } from "node:net";
import * as zlib from "node:zlib";
import { brotliCompressSync, createGzip, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import type { LlmError } from "../../src/llm/errors.js";
import { bytesReader } from "../../src/llm/body-bytes.js";
import { httpFetch, httpOpen } from "../../src/llm/http-fetch.js";
import { AnthropicModel } from "../../src/llm/anthropic.js";
import { GeminiModel } from "../../src/llm/gemini.js";
import { OpenAICompatibleModel } from "../../src/llm/openai-compatible.js";
import type { ChatModel } from "../../src/llm/types.js";
import { failure } from "./collect.js";

/** The upstream fetch against real node:http servers, some of them hostile. */

let server: Server | undefined;
let connections = 0;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
  connections = 0;
});

async function serving(handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<string> {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handler(req, res, Buffer.concat(chunks)));
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** zstd is in node:zlib from Node 22.15. */
const zstdCompress = (zlib as unknown as { zstdCompressSync?: (data: string | Buffer) => Buffer }).zstdCompressSync;

async function readAll(body: ReadableStream<Uint8Array> | null): Promise<string> {
  const reader = body!.getReader();
  const chunks: Uint8Array[] = [];
  for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
  return Buffer.concat(chunks).toString("utf8");
}

/** An answer of two events: the first written at once, the last (and the end) when `finish` is called. */
async function servingTwoEvents(): Promise<{ url: string; finish(): void }> {
  let finish: (() => void) | undefined;
  const url = await serving((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: first\n\n");
    finish = () => res.end("data: last\n\n");
  });
  return { url, finish: () => finish?.() };
}

/** An endless answer, written as fast as the socket takes it; what was written and whether the server saw the connection close. */
async function servingEndless(): Promise<{ url: string; written(): number; closed(): boolean }> {
  let written = 0;
  let closed = false;
  const url = await serving((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const piece = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => {
      while (!res.destroyed) {
        written += piece.length;
        if (!res.write(piece)) return void res.once("drain", pump);
      }
    };
    res.on("close", () => (closed = true));
    pump();
  });
  return { url, written: () => written, closed: () => closed };
}

/** Waits until the server can write no more (the socket's buffers full); what it wrote by then. */
async function whenStalled(written: () => number): Promise<number> {
  let before = -1;
  while (written() !== before && written() < 16 * 1024 * 1024) {
    before = written();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return written();
}

describe("httpOpen's bytes, read without a web stream", () => {
  it("come as the server writes them, and end with the answer; the status and content type are the answer's", async () => {
    const { url, finish } = await servingTwoEvents();
    const answer = await httpOpen(url);
    expect([answer.status, answer.contentType]).toEqual([200, "text/event-stream"]);
    const reader = bytesReader(answer.bytes()!);
    expect(Buffer.from((await reader.next()).value as Uint8Array).toString()).toBe("data: first\n\n");
    finish();
    expect(Buffer.from((await reader.next()).value as Uint8Array).toString()).toBe("data: last\n\n");
    expect((await reader.next()).done).toBe(true);
  });

  it("are read from the socket no faster than they are taken, and a reader that stops closes the connection", async () => {
    const endless = await servingEndless();
    const reader = bytesReader((await httpOpen(endless.url)).bytes()!);
    await reader.next();
    expect(await whenStalled(endless.written)).toBeLessThan(16 * 1024 * 1024);
    await reader.return!();
    await expect.poll(endless.closed).toBe(true);
  });

  it("fail with the abort's reason when aborted mid-answer, and as terminated when the server cuts the connection", async () => {
    const url = await serving((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (req.url === "/cut") res.write("data: half", () => (res.socket as Socket).destroy());
      else res.write("part");
    });
    const late = new AbortController();
    const reader = bytesReader((await httpOpen(url, { signal: late.signal })).bytes()!);
    await reader.next();
    late.abort();
    await expect(reader.next()).rejects.toMatchObject({ name: "AbortError" });

    const cut = bytesReader((await httpOpen(`${url}/cut`)).bytes()!);
    await expect((async () => { for (let read = await cut.next(); !read.done; read = await cut.next()); })()).rejects.toMatchObject({ name: "TypeError", message: "terminated" });
  });

  it("are none for a 204, and the same answer is still a fetch Response when asked", async () => {
    const url = await serving((req, res) => {
      res.writeHead(req.url === "/none" ? 204 : 200, { "x-kind": "k" });
      res.end(req.url === "/none" ? undefined : "whole");
    });
    expect((await httpOpen(`${url}/none`)).bytes()).toBeNull();
    const response = (await httpOpen(url)).response();
    expect([response.status, response.headers.get("x-kind"), await response.text()]).toEqual([200, "k", "whole"]);
  });
});

describe("httpFetch", () => {
  it("sends the method, headers and body, and answers status, headers and body as fetch does", async () => {
    const url = await serving((req, res, body) => {
      res.writeHead(201, "Made", { "content-type": "application/json", "x-seen": `${req.method} ${req.headers["x-key"]} ${req.headers["content-length"]}` });
      res.end(JSON.stringify({ got: JSON.parse(body.toString()) }));
    });
    const response = await httpFetch(`${url}/v1/things`, { method: "POST", headers: new Headers({ "x-key": "k1" }), body: JSON.stringify({ a: "é" }) });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Made");
    expect(response.headers.get("x-seen")).toBe("POST k1 10");
    expect(await response.json()).toEqual({ got: { a: "é" } });
  });

  it("reuses one connection for requests one after another", async () => {
    const url = await serving((_req, res) => res.end("ok"));
    for (let i = 0; i < 3; i++) expect(await (await httpFetch(url)).text()).toBe("ok");
    expect(connections).toBe(1);
  });

  it("streams the answer as it comes, before the server has ended it", async () => {
    const { url, finish } = await servingTwoEvents();
    const reader = (await httpFetch(url)).body!.getReader();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe("data: first\n\n");
    finish();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe("data: last\n\n");
    expect((await reader.read()).done).toBe(true);
  });

  it("reads an endless answer no faster than it is consumed, and cancelling closes the connection", async () => {
    const endless = await servingEndless();
    const reader = (await httpFetch(endless.url)).body!.getReader();
    await reader.read();
    expect(await whenStalled(endless.written)).toBeLessThan(16 * 1024 * 1024);
    await reader.cancel();
    await expect.poll(endless.closed).toBe(true);
  });

  it("sends a streamed request body as it is read", async () => {
    const url = await serving((req, res, body) => res.end(`${req.headers["transfer-encoding"]} ${body.toString()}`));
    const parts = ["one ", "two ", "three"];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const part = parts.shift();
        if (part === undefined) controller.close();
        else controller.enqueue(Buffer.from(part));
      },
    });
    const response = await httpFetch(url, { method: "POST", body, duplex: "half" } as RequestInit);
    expect(await response.text()).toBe("chunked one two three");
  });

  it("rejects with the abort's reason when aborted before the answer, and errors the body when aborted during it", async () => {
    const url = await serving((req, res) => {
      if (req.url === "/slow") return;
      res.writeHead(200);
      res.write("part");
    });
    const early = new AbortController();
    const pending = httpFetch(`${url}/slow`, { signal: early.signal });
    setTimeout(() => early.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });

    const late = new AbortController();
    const reader = (await httpFetch(url, { signal: late.signal })).body!.getReader();
    await reader.read();
    late.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
  });

  it("says fetch failed, with the socket's error as the cause, when nothing listens", async () => {
    const url = await serving(() => undefined);
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    await expect(httpFetch(url)).rejects.toMatchObject({ name: "TypeError", message: "fetch failed", cause: { code: "ECONNREFUSED" } });
  });

  it("errors the body as terminated when the server cuts the connection mid-answer", async () => {
    const url = await serving((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: half", () => (res.socket as Socket).destroy());
    });
    await expect(readAll((await httpFetch(url)).body)).rejects.toMatchObject({ name: "TypeError", message: "terminated" });
  });

  it("follows a redirect, as fetch does: a 303 after a POST with a GET", async () => {
    const url = await serving((req, res, body) => {
      if (req.url === "/old") res.writeHead(307, { location: "/new" }).end();
      else if (req.url === "/form") res.writeHead(303, { location: "/done" }).end();
      else res.end(`${req.method} ${req.url} ${body.length}`);
    });
    expect(await (await httpFetch(`${url}/old`)).text()).toBe("GET /new 0");
    expect(await (await httpFetch(`${url}/form`, { method: "POST", body: "x=1" })).text()).toBe("GET /done 0");
  });

  it("sends no credentials on to another origin a redirect names, as fetch does, and keeps them on the same origin", async () => {
    const other = createServer((req, res) => res.end(`${req.headers.authorization ?? "-"} ${req.headers.cookie ?? "-"} ${req.headers["x-key"] ?? "-"}`));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const elsewhere = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    try {
      const url = await serving((req, res) => {
        if (req.url === "/away") res.writeHead(307, { location: `${elsewhere}/taken` }).end();
        else if (req.url === "/here") res.writeHead(307, { location: "/kept" }).end();
        else res.end(`${req.headers.authorization ?? "-"} ${req.headers.cookie ?? "-"} ${req.headers["x-key"] ?? "-"}`);
      });
      const headers = { authorization: "Bearer sk-secret", cookie: "session=1", "x-key": "plain" };
      expect(await (await httpFetch(`${url}/away`, { headers })).text()).toBe("- - plain");
      expect(await (await httpFetch(`${url}/here`, { headers })).text()).toBe("Bearer sk-secret session=1 plain");
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("undoes gzip, deflate (zlib-wrapped or raw), br and zstd, and two codings in the order applied, as fetch does", async () => {
    const text = JSON.stringify({ choices: [{ message: { content: "é".repeat(5000) } }] });
    // Each as [coding, body]: a server that says deflate may send either kind.
    const encoded: [string, Buffer][] = [
      ["gzip", gzipSync(text)],
      ["deflate", deflateSync(text)],
      ["deflate", deflateRawSync(text)],
      ["br", brotliCompressSync(text)],
      ["gzip, br", brotliCompressSync(gzipSync(text))],
      ["deflate, gzip", gzipSync(deflateRawSync(text))],
      ...(zstdCompress ? [["zstd", zstdCompress(text)] as [string, Buffer]] : []),
    ];
    const url = await serving((req, res) => {
      const [coding, body] = encoded[Number(req.url!.slice(1))]!;
      res.writeHead(200, { "content-type": "application/json", "content-encoding": coding }).end(body);
    });
    for (const [index, [coding]] of encoded.entries()) {
      const response = await httpFetch(`${url}/${index}`);
      expect(response.headers.get("content-encoding")).toBe(coding);
      expect(await response.text()).toBe(text);
    }
  });

  it("reads an empty raw deflate body as empty", async () => {
    const url = await serving((_req, res) => res.writeHead(200, { "content-encoding": "deflate" }).end());
    expect(await readAll((await httpFetch(url)).body)).toBe("");
  });

  it.runIf(!zstdCompress)("fails a zstd body on a Node without zstd with a line that says so", async () => {
    const url = await serving((_req, res) => res.writeHead(200, { "content-encoding": "zstd" }).end("compressed"));
    await expect(readAll((await httpFetch(url)).body)).rejects.toMatchObject({
      message: "terminated",
      cause: { message: `the answer is compressed with zstd, which Node ${process.version} cannot decode (Node 22.15 or later can)` },
    });
  });

  it("cuts a raw deflate or zstd bomb at the answer's limit, in decompressed bytes", async () => {
    // 48 MiB of one letter inflates from a few dozen KiB: past the 32 MiB limit on one event.
    const event = Buffer.concat([Buffer.from("data: "), Buffer.alloc(48 * 1024 * 1024, 0x61)]);
    const bombs: Record<string, Buffer> = { deflate: deflateRawSync(event), ...(zstdCompress ? { zstd: zstdCompress(event) } : {}) };
    const url = await serving((req, res) => {
      const coding = req.url!.split("/")[1]!;
      res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": coding }).end(bombs[coding]);
    });
    for (const coding of Object.keys(bombs)) {
      const err = (await failure(new OpenAICompatibleModel({ baseURL: `${url}/${coding}/v1`, model: "m" }).stream({ messages: [{ role: "user", content: "hi" }] }))) as LlmError;
      expect(err.message).toMatch(new RegExp(`^The model server at ${url}/${coding}/v1 sent one event of more than \\d+ bytes; the rest was not read\\.$`));
    }
  });

  it("leaves a body in a coding it does not know as it came", async () => {
    const url = await serving((_req, res) => res.writeHead(200, { "content-encoding": "toString" }).end("as sent"));
    expect(await (await httpFetch(url)).text()).toBe("as sent");
  });

  it.each([
    ["gzip", createGzip],
    ["deflate", zlib.createDeflateRaw],
  ])("reads a compressed stream (%s) as it comes: an event the server flushed is read before the server ends", async (coding, compressor) => {
    let finish: (() => void) | undefined;
    const url = await serving((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": coding });
      const compressed = compressor();
      compressed.pipe(res);
      compressed.write("data: first\n\n");
      compressed.flush();
      finish = () => compressed.end("data: last\n\n");
    });
    const reader = (await httpFetch(url)).body!.getReader();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe("data: first\n\n");
    finish?.();
    let rest = "";
    for (let read = await reader.read(); !read.done; read = await reader.read()) rest += Buffer.from(read.value).toString();
    expect(rest).toBe("data: last\n\n");
  });

  it("errors the body as terminated, with zlib's reason, when it is not what its coding says", async () => {
    const url = await serving((_req, res) => res.writeHead(200, { "content-encoding": "gzip" }).end("plain text, not gzip"));
    await expect(readAll((await httpFetch(url)).body)).rejects.toMatchObject({ name: "TypeError", message: "terminated", cause: { code: "Z_DATA_ERROR" } });
  });

  it("cuts a zip bomb at the answer's limit, in decompressed bytes, with one line naming the server, and closes the connection", async () => {
    // Gzip members one after another are one body: each inflates 64 KiB into 64 MiB, without end.
    const member = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x61));
    let written = 0;
    let closed = 0;
    const url = await serving((req, res) => {
      const json = req.url!.includes("json");
      res.writeHead(200, { "content-type": json ? "application/json" : "text/event-stream", "content-encoding": "gzip" });
      res.write(gzipSync(json ? '{"choices":[{"message":{"content":"' : "data: "));
      const pump = () => {
        while (!res.destroyed) {
          written += member.length;
          if (!res.write(member)) return void res.once("drain", pump);
        }
      };
      res.on("close", () => closed++);
      pump();
    });
    // Each adapter's SSE reader, and a JSON answer read whole.
    const models: [string, (baseURL: string) => ChatModel][] = [
      ["/sse/v1", (baseURL) => new OpenAICompatibleModel({ baseURL, model: "m" })],
      ["/json/v1", (baseURL) => new OpenAICompatibleModel({ baseURL, model: "m" })],
      ["/anthropic", (baseURL) => new AnthropicModel({ baseURL, apiKey: "k", model: "m" })],
      ["/gemini", (baseURL) => new GeminiModel({ baseURL, apiKey: "k", model: "m" })],
    ];
    for (const [path, model] of models) {
      const err = (await failure(model(`${url}${path}`).stream({ messages: [{ role: "user", content: "hi" }] }))) as LlmError;
      expect(err.message.startsWith(`The model server at ${url}${path} sent one event of more than `)).toBe(true);
      expect(err.message.endsWith(" bytes; the rest was not read.")).toBe(true);
      // Cut at the 32 MiB limit on one event, within a read of it.
      const bytes = Number(/more than (\d+) bytes/.exec(err.message)?.[1]);
      expect(bytes).toBeGreaterThanOrEqual(32 * 1024 * 1024);
      expect(bytes).toBeLessThan(33 * 1024 * 1024);
    }
    await expect.poll(() => closed).toBe(models.length);
    // The endless body was taken no further than the sockets' buffers hold.
    expect(written).toBeLessThan(32 * 1024 * 1024);
  });
});

describe("a kept-alive connection the server closed as it idled", () => {
  /**
   * A hostile server in raw TCP: the first request on a connection is answered (an SSE chat completion saying "ok",
   * kept alive); bytes of a second request on that connection are met with a reset, as from a server that closed
   * the connection as it idled just when it was reused. With `resetFresh`, a new connection's request is reset too.
   */
  async function idleClosing(resetFresh = false): Promise<{ url: string; bodies: string[]; connections: () => number; close: () => Promise<void> }> {
    const bodies: string[] = [];
    let count = 0;
    const sockets = new Set<Socket>();
    const raw = createNetServer((socket) => {
      count++;
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      let answered = false;
      let held = Buffer.alloc(0);
      socket.on("data", (chunk: Buffer) => {
        if (answered || resetFresh) return void socket.resetAndDestroy();
        held = Buffer.concat([held, chunk]);
        const headEnd = held.indexOf("\r\n\r\n");
        if (headEnd === -1) return;
        const length = Number(/content-length: *(\d+)/i.exec(held.subarray(0, headEnd).toString("latin1"))?.[1] ?? 0);
        if (held.length < headEnd + 4 + length) return;
        answered = true;
        bodies.push(held.subarray(headEnd + 4, headEnd + 4 + length).toString("utf8"));
        const events = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`;
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: ${Buffer.byteLength(events)}\r\nconnection: keep-alive\r\n\r\n${events}`);
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    return {
      url: `http://127.0.0.1:${(raw.address() as { port: number }).port}`,
      bodies,
      connections: () => count,
      close: async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => raw.close(resolve));
      },
    };
  }

  it("sends a request again, once, when its kept-alive connection is reset before any answer", async () => {
    const peer = await idleClosing();
    try {
      for (const body of ["first", "second"]) {
        const answer = await httpOpen(`${peer.url}/v1/chat/completions`, { method: "POST", body });
        expect(answer.status).toBe(200);
        // Read to its end, so that its connection is kept for the next request.
        expect(await readAll(answer.response().body)).toContain('"ok"');
      }
      // The second went out on the first connection, was reset, and was answered on a new one.
      expect(peer.bodies).toEqual(["first", "second"]);
      expect(peer.connections()).toBe(2);
    } finally {
      await peer.close();
    }
  });

  it("sends a streamed body again only when it can be made again", async () => {
    const peer = await idleClosing();
    const stream = (text: string) => new Blob([text]).stream();
    // Its length given, as the model adapter gives it, so that it is not sent chunked.
    const headers = { "content-length": "8" };
    try {
      await readAll((await httpOpen(peer.url, { method: "POST", body: "warm" })).response().body);
      const lost = await httpOpen(peer.url, { method: "POST", headers, body: stream("streamed") }).catch((error: unknown) => error);
      expect(lost).toBeInstanceOf(TypeError);
      expect((lost as TypeError).message).toBe("fetch failed");
      expect(peer.connections()).toBe(1);
      // Now kept alive on a second connection, which the next request meets reset.
      await readAll((await httpOpen(peer.url, { method: "POST", body: "warm" })).response().body);
      const answer = await httpOpen(peer.url, { method: "POST", headers, body: stream("streamed"), bodyAgain: () => stream("streamed") });
      expect(answer.status).toBe(200);
      expect(peer.bodies).toEqual(["warm", "warm", "streamed"]);
    } finally {
      await peer.close();
    }
  });

  it("does not send again what a new connection had reset", async () => {
    const peer = await idleClosing(true);
    try {
      const failed = await httpOpen(peer.url, { method: "POST", body: "once" }).catch((error: unknown) => error);
      expect((failed as TypeError).message).toBe("fetch failed");
      expect(peer.connections()).toBe(1);
    } finally {
      await peer.close();
    }
  });

  it("costs a model turn nothing: a conversation of megabytes is sent whole again, with no retry", async () => {
    const peer = await idleClosing();
    try {
      const model = new OpenAICompatibleModel({ baseURL: `${peer.url}/v1`, model: "m", retry: { maxRetries: 0 } });
      const long = "é".repeat(2 * 1024 * 1024);
      for (const content of ["hi", long]) {
        const events = [];
        for await (const event of model.stream({ messages: [{ role: "user", content }] })) events.push(event);
        expect(events.filter((event) => event.type === "retry")).toEqual([]);
        expect(events.find((event) => event.type === "text-delta")).toMatchObject({ text: "ok" });
      }
      expect(peer.connections()).toBe(2);
      expect((JSON.parse(peer.bodies[1] ?? "") as { messages: { content: string }[] }).messages[0]?.content).toBe(long);
    } finally {
      await peer.close();
    }
  });
});
