// A model server (or a model hub) that redirects to file:, data: or ftp: gets one line naming the URL
// that redirected and the scheme, not undici's words ("fetch failed", "not implemented... yet...").
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listModels } from "../../src/llm/discovery.js";
import { LlmError } from "../../src/llm/errors.js";
import { modelFile } from "../../src/llm/model-download.js";
import { OpenAICompatibleModel } from "../../src/llm/openai-compatible.js";
import { failure } from "./collect.js";

let server: Server | undefined;
let dir: string | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  if (dir) await rm(dir, { recursive: true, force: true });
  server = dir = undefined;
});

/** Answers every request with a redirect: `/hop/...` to the same path without `/hop` (on this server), anything else to `location`. */
async function redirecting(location: string): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    const path = req.url ?? "/";
    res.writeHead(302, { location: path.startsWith("/hop/") ? path.slice("/hop".length) : location });
    res.end();
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const ask = { messages: [{ role: "user" as const, content: "hi" }] };
const LINE = "redirected to a file: URL, which is not followed (only http: and https: redirects are)";

describe("a model server that redirects to another scheme", () => {
  it.each(["file:///etc/passwd", "data:text/plain,hello", "ftp://127.0.0.1/x"])("a chat request redirected to %s fails with one line naming the URL and the scheme", async (location) => {
    const origin = await redirecting(location);
    const error = (await failure(new OpenAICompatibleModel({ baseURL: `${origin}/v1`, model: "m", retry: { baseDelayMs: 1 } }).stream(ask))) as LlmError;
    const scheme = new URL(location).protocol;
    expect(error).toBeInstanceOf(LlmError);
    expect(error.message).toBe(`The model server at ${origin}/v1 cannot be used: ${origin}/v1/chat/completions redirected to a ${scheme} URL, which is not followed (only http: and https: redirects are)`);
  });

  it("names the hop that pointed to file: when an http redirect came first", async () => {
    const origin = await redirecting("file:///etc/passwd");
    const error = (await failure(new OpenAICompatibleModel({ baseURL: `${origin}/hop/v1`, model: "m", retry: { baseDelayMs: 1 } }).stream(ask))) as LlmError;
    expect(error.message).toBe(`The model server at ${origin}/hop/v1 cannot be used: ${origin}/v1/chat/completions ${LINE}`);
  });

  it("listing the server's models says the same", async () => {
    const origin = await redirecting("file:///etc/passwd");
    const error = await listModels(`${origin}/v1`, undefined, 5000).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain(`${origin}/v1/models ${LINE}`);
  });
});

describe("an hf: download redirected to another scheme", () => {
  it("fails with one line naming the hub's URL and the scheme, not as a hub it cannot reach", async () => {
    const origin = await redirecting("file:///etc/passwd");
    dir = await mkdtemp(join(tmpdir(), "toolbridge-redirect-"));
    const error = await modelFile("hf:owner/repo/model.gguf", { cacheDir: dir, endpoint: origin }).then(
      () => undefined,
      (e: unknown) => e as LlmError,
    );
    expect(error?.message).toBe(`Downloading hf:owner/repo/model.gguf failed: ${origin}/owner/repo/resolve/main/model.gguf ${LINE}`);
  });

  it("and the same when the file store the hub points to redirects there", async () => {
    const origin = await redirecting("file:///etc/passwd");
    dir = await mkdtemp(join(tmpdir(), "toolbridge-redirect-"));
    const error = await modelFile("hf:owner/repo/model.gguf", { cacheDir: dir, endpoint: `${origin}/hop` }).then(
      () => undefined,
      (e: unknown) => e as LlmError,
    );
    expect(error?.message).toBe(`Downloading hf:owner/repo/model.gguf failed: ${origin}/owner/repo/resolve/main/model.gguf ${LINE}`);
  });
});
