/**
 * Reading one large SSE event from a model server: the `openai` SDK's own stream reader
 * (which copies and rescans what it holds on every network chunk) against toolbridge's
 * OpenAI-compatible adapter, for one event of 2.5, 5 and 10 MB written in 64 KiB pieces by a
 * server in another process. Reported: milliseconds each, and the ratio.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { OpenAICompatibleModel } from "../src/llm/openai-compatible.js";

const SIZES_MB = [2.5, 5, 10];

/** A model server that answers every request with one event of `mb` MB of content. */
const SERVER = `
const { createServer } = require("node:http");
const chunk = (delta, finish = null) => "data: " + JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] }) + "\\n\\n";
const events = new Map();
const server = createServer((req, res) => {
  const mb = Number(new URL(req.url, "http://x").searchParams.get("mb") ?? 0) || Number(req.headers["x-mb"]);
  req.resume();
  req.on("end", () => {
    if (!events.has(mb)) events.set(mb, Buffer.from(chunk({ content: "x".repeat(mb * 1024 * 1024) })));
    const event = events.get(mb);
    res.writeHead(200, { "content-type": "text/event-stream" });
    let offset = 0;
    const pump = () => {
      while (offset < event.length) {
        const piece = event.subarray(offset, offset + 65536);
        offset += piece.length;
        if (!res.write(piece)) return void res.once("drain", pump);
      }
      res.end(chunk({}, "stop") + "data: [DONE]\\n\\n");
    };
    pump();
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

export async function run(): Promise<void> {
  const child = spawn(process.execPath, ["-e", SERVER], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const port = await new Promise<string>((resolve) => child.stdout?.once("data", (data: Buffer) => resolve(data.toString().trim())));
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const rows = [];
    for (const mb of SIZES_MB) {
      const headers = { "x-mb": String(mb) };
      const sdk = new OpenAI({ baseURL, apiKey: "none", maxRetries: 0, defaultHeaders: headers });
      const ours = new OpenAICompatibleModel({ baseURL, model: "m", headers, maxAnswerChars: 64 * 1024 * 1024, retry: { maxRetries: 0 } });
      const sdkMs = await timed(async () => {
        let chars = 0;
        const stream = await sdk.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true });
        for await (const part of stream) chars += part.choices[0]?.delta?.content?.length ?? 0;
        return chars;
      });
      const oursMs = await timed(async () => {
        let chars = 0;
        for await (const event of ours.stream({ messages: [{ role: "user", content: "hi" }] })) if (event.type === "text-delta") chars += event.text.length;
        return chars;
      });
      rows.push({ "one event": `${mb} MB`, "openai SDK ms": sdkMs.toFixed(0), "toolbridge ms": oursMs.toFixed(0), "SDK / toolbridge": `${(sdkMs / oursMs).toFixed(1)}x` });
    }
    console.log("\nreading one large SSE event (content of N MB in one chunk of a chat completions stream)");
    console.table(rows);
  } finally {
    child.kill("SIGKILL");
  }
}

async function timed(read: () => Promise<number>): Promise<number> {
  const started = performance.now();
  const chars = await read();
  if (chars === 0) throw new Error("read no content");
  return performance.now() - started;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
