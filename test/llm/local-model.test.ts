import { copyFile, mkdir, mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatModel } from "../../src/llm/create-model.js";
import { LlmError } from "../../src/llm/errors.js";
import { LocalModel } from "../../src/llm/local-model.js";
import type { ToolDefinition } from "../../src/llm/types.js";
import { freePort } from "../support/free-port.js";
import { writeTinyGguf } from "../support/tiny-gguf.js";
import { collect, failure } from "./collect.js";

let dir: string;
let path: string;
let model: LocalModel;

// One thread: on a busy machine llama.cpp's spinning threads wait for each other.
const settings = { threads: 1, maxTokens: 16, temperature: 0 };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbridge-local-"));
  path = join(dir, "tiny.gguf");
  await writeTinyGguf(path);
  model = await LocalModel.open({ path, ...settings });
}, 60_000);

afterAll(async () => {
  await model?.close();
  await rm(dir, { recursive: true, force: true });
});

const add: ToolDefinition = {
  name: "add",
  description: "Add two numbers",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
};
const today: ToolDefinition = {
  name: "today",
  description: "The date",
  parameters: { type: "object", properties: { format: { type: "string", enum: ["iso", "long"] } } },
};
const ask = (content: string) => ({ messages: [{ role: "user" as const, content }] });

describe("the local model", () => {
  it("streams an answer bounded by maxTokens, with usage and a finish", async () => {
    const out = await collect(model.stream(ask("hello")));
    expect(out.events.some((event) => event.type === "text-delta")).toBe(true);
    const usage = out.events.find((event) => event.type === "usage");
    expect(usage && usage.type === "usage" && usage.usage.outputTokens).toBeGreaterThan(0);
    expect(usage && usage.type === "usage" && usage.usage.outputTokens).toBeLessThanOrEqual(16);
    expect(out.finish).toMatch(/^(length|stop)$/);
  });

  it("calls a tool with arguments its schema accepts when a call is required", async () => {
    const out = await collect(model.stream({ ...ask("what is 2+3"), tools: [add, today], toolChoice: "required", maxTokens: 200 }));
    expect(out.calls).toHaveLength(1);
    const call = out.calls[0]!;
    expect(["add", "today"]).toContain(call.name);
    const args = JSON.parse(call.arguments) as Record<string, unknown>;
    if (call.name === "add") {
      expect(typeof args.a).toBe("number");
      expect(typeof args.b).toBe("number");
    } else {
      expect(["iso", "long"]).toContain(args.format);
    }
    expect(out.text).toBe("");
    expect(out.finish).toBe("tool-calls");
  });

  it("calls the tool a choice names", async () => {
    const out = await collect(model.stream({ ...ask("the date?"), tools: [add, today], toolChoice: { name: "today" }, maxTokens: 200 }));
    expect(out.calls.map((call) => call.name)).toEqual(["today"]);
    expect(["iso", "long"]).toContain((JSON.parse(out.calls[0]!.arguments) as { format: string }).format);
  });

  it("answers after a tool result, the call and its result in the conversation", async () => {
    const out = await collect(
      model.stream({
        messages: [
          { role: "user", content: "what is 2+3" },
          { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "add", arguments: '{"a":2,"b":3}' }] },
          { role: "tool", toolCallId: "call_1", name: "add", content: "5" },
        ],
        tools: [add],
      }),
    );
    expect(out.finish).toMatch(/^(length|stop|tool-calls)$/);
    for (const call of out.calls) expect(JSON.parse(call.arguments)).toEqual({ a: expect.any(Number), b: expect.any(Number) });
  });

  it("stops when the request is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(model.stream({ ...ask("hello"), signal: controller.signal }));
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).code).toBe("aborted");
  });

  it("is what createChatModel gives for provider local", async () => {
    const made = await createChatModel({ provider: "local", model: path, ...settings }, {});
    expect(made.provider).toBe("local");
    expect(made.modelId).toBe(path);
    expect((await collect(made.stream(ask("hi")))).finish).toMatch(/^(length|stop)$/);
    await (made as LocalModel).close();
  });
});

describe("a model file that cannot be run", () => {
  const opened = async (file: string) => {
    try {
      await LocalModel.open({ path: file, threads: 1 });
    } catch (error) {
      expect(error).toBeInstanceOf(LlmError);
      return (error as LlmError).message;
    }
    throw new Error("it opened");
  };

  it("is one line naming a missing file", async () => {
    const missing = join(dir, "nowhere.gguf");
    expect(await opened(missing)).toBe(`No model file at ${missing}.`);
  });

  it("is one line naming a file that is not a GGUF", async () => {
    const text = join(dir, "notes.gguf");
    await writeFile(text, "this is not a model\n");
    expect(await opened(text)).toBe(`The model file ${text} is not a GGUF file.`);
  });

  it("is one line naming a GGUF cut short in its metadata", async () => {
    const cut = join(dir, "cut.gguf");
    await copyFile(path, cut);
    await truncate(cut, 4000);
    expect(await opened(cut)).toBe(`The model file ${cut} is cut short: it ends after 4000 bytes, in the value of metadata key "tokenizer.ggml.tokens".`);
  });

  it("is one line naming a GGUF cut short in its tensor data, in llama.cpp's words", async () => {
    const cut = join(dir, "cut-data.gguf");
    await copyFile(path, cut);
    await truncate(cut, 100_000);
    const message = await opened(cut);
    expect(message).toMatch(new RegExp(`^The model file ${cut.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} could not be loaded: \\S`));
    expect(message).not.toContain("\n");
  });

  it("asks for a model file when none is named", async () => {
    await expect(createChatModel({ provider: "local" }, {})).rejects.toThrow("Name the model file to run: --model PATH.gguf (llm.model).");
  });
});

describe("a conversation longer than the context", () => {
  it("is a context-length error when even its system prompt does not fit", async () => {
    const small = await LocalModel.open({ path, ...settings, contextSize: 64 });
    try {
      const error = await failure(small.stream({ messages: [{ role: "system", content: "word ".repeat(200) }, { role: "user", content: "hi" }] }));
      expect(error).toBeInstanceOf(LlmError);
      expect((error as LlmError).code).toBe("context-length");
    } finally {
      await small.close();
    }
  });
});

describe("when no model server answers", () => {
  const nowhere = async () => [{ name: "vLLM", baseURL: `http://127.0.0.1:${await freePort()}/v1` }];

  it("runs llm.localModel instead, and says so", async () => {
    const notices: string[] = [];
    const localServers = await nowhere();
    const made = await createChatModel({ localModel: path, ...settings }, {}, { localServers, onNotice: (line) => notices.push(line) });
    expect(made.provider).toBe("local");
    expect(notices).toEqual([`No model server answers at ${localServers[0]!.baseURL}; using the local model ${path}.`]);
    await (made as LocalModel).close();
  });

  it("runs the model downloaded last when none is configured", async () => {
    const models = join(dir, "xdg-cache", "toolbridge", "models");
    await mkdir(models, { recursive: true });
    await copyFile(path, join(models, "owner--repo--tiny.gguf"));
    await writeFile(join(models, "owner--repo--other.gguf.part"), "half");
    const notices: string[] = [];
    const made = await createChatModel({ ...settings }, { XDG_CACHE_HOME: join(dir, "xdg-cache") }, { localServers: await nowhere(), onNotice: (line) => notices.push(line) });
    expect(made.modelId).toBe(join(models, "owner--repo--tiny.gguf"));
    expect(notices[0]).toMatch(/; using the local model .*owner--repo--tiny\.gguf\.$/);
    await (made as LocalModel).close();
  });

  it("does not stand in for a model the user named", async () => {
    const error = await createChatModel({ localModel: path, model: "Qwen/Qwen3-8B", ...settings }, {}, { localServers: await nowhere() }).catch((e: unknown) => e);
    expect((error as LlmError).code).toBe("connection");
  });
});
