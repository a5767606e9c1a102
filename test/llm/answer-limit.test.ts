import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { LlmError } from "../../src/llm/errors.js";
import { OpenAICompatibleModel } from "../../src/llm/openai-compatible.js";
import { listenScripted, type ScriptedServer } from "../support/scripted-server.js";
import { collect, failure } from "./collect.js";

let server: ScriptedServer | undefined;
/** Whether the model server saw its reply's connection closed before it had finished. */
let cutOff: Promise<boolean> = Promise.resolve(false);

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** A model server whose reply is `write(res)`: the hostile peer of each test. */
async function modelWith(write: (res: ServerResponse) => void, maxAnswerChars?: number) {
  server = await listenScripted(async (_request, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    cutOff = new Promise((resolve) => res.on("close", () => resolve(!res.writableFinished)));
    write(res);
  });
  return new OpenAICompatibleModel({
    baseURL: `${server.url}/v1`,
    model: "m",
    retry: { maxRetries: 0 },
    ...(maxAnswerChars !== undefined ? { maxAnswerChars } : {}),
  });
}

/** Writes `next()` for ever, minding backpressure, until the client goes away. */
function forever(res: ServerResponse, next: () => string): void {
  const pump = (): void => {
    while (!res.destroyed) if (!res.write(next())) return void res.once("drain", pump);
  };
  pump();
}

const ask = { messages: [{ role: "user" as const, content: "hi" }] };

describe("a model that streams without end", () => {
  it("is cut off at maxAnswerChars with one clear error, and the connection is closed", async () => {
    const piece = "words ".repeat(1000);
    const model = await modelWith((res) => forever(res, () => chunk({ content: piece })), 1024 * 1024);
    const error = await failure(model.stream(ask));
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).message).toBe(
      `The model server at ${server!.url}/v1 sent an answer of more than 1048576 characters (llm.maxAnswerChars); the rest was not read.`,
    );
    expect(await cutOff).toBe(true);
  });

  it("counts tool-call arguments that never end against the same limit", async () => {
    const piece = '"a'.padEnd(4000, "a");
    let first = true;
    const model = await modelWith(
      (res) =>
        forever(res, () => {
          const call = first ? { index: 0, id: "call_1", function: { name: "echo", arguments: `{"text": ${piece}` } } : { index: 0, function: { arguments: piece } };
          first = false;
          return chunk({ tool_calls: [call] });
        }),
      1024 * 1024,
    );
    const error = await failure(model.stream(ask));
    expect((error as LlmError).message).toContain("sent an answer of more than 1048576 characters (llm.maxAnswerChars)");
    expect(await cutOff).toBe(true);
  });

  it("reads one 20 MB event whole, however the network cut it", async () => {
    const content = "x".repeat(20 * 1024 * 1024);
    const model = await modelWith((res) => {
      res.write(chunk({ role: "assistant", content: "" }));
      // The one large event goes out in 64 KiB writes.
      const event = Buffer.from(chunk({ content }));
      for (let i = 0; i < event.length; i += 65536) res.write(event.subarray(i, i + 65536));
      res.end(`${chunk({}, "stop")}data: [DONE]\n\n`);
    }, 32 * 1024 * 1024);
    const out = await collect(model.stream(ask));
    expect(out.text.length).toBe(content.length);
    expect(out.finish).toBe("stop");
  });
});
