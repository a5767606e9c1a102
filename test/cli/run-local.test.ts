import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../support/cli.js";
import { freePort } from "../support/free-port.js";
import { binaryPackages } from "../../src/llm/runtime-install.js";
import { writeFakeNpm } from "../support/fake-npm.js";
import { writeTinyGguf } from "../support/tiny-gguf.js";
import { Tmux } from "../support/tmux.js";

/** `toolbridge run --provider local` end to end: the built CLI, the bundled math server, a tiny GGUF written here. */
let dir: string;
let model: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbridge-run-local-"));
  model = join(dir, "tiny.gguf");
  await writeTinyGguf(model);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * One thread (llama.cpp's threads spin while they wait for each other on a busy machine); a call
 * is required, of `add` alone, so the tiny model's first reply is that call and its second, with
 * tools no longer offered after one round, the answer.
 */
async function project(name: string, llm: Record<string, unknown> = {}): Promise<string> {
  const cwd = join(dir, name);
  await mkdir(cwd, { recursive: true });
  const config = { llm: { threads: 1, maxTokens: 100, toolChoice: "required", maxIterations: 1, ...llm }, tools: { enabled: ["add"] } };
  await writeFile(join(cwd, "toolbridge.json"), JSON.stringify(config));
  return cwd;
}

// Each run starts the servers and llama.cpp on two shared cores.
describe("toolbridge run --provider local", { timeout: 60_000 }, () => {
  it("calls a bundled tool under the grammar and ends with an answer", async () => {
    const cwd = await project("answer");
    const run = await runCli(["run", "what is 2+3", "--provider", "local", "--model", model, "--approve", "all", "--json"], { cwd });
    expect(run.code, run.stderr).toBe(0);
    const turn = JSON.parse(run.stdout) as { provider: string; model: string; answer: string; status: string; toolCalls: Array<{ name: string; outcome: string; arguments: { a: number; b: number }; result: { structuredContent: { result: { result: number } } } }> };
    expect(turn.provider).toBe("local");
    expect(turn.model).toBe(model);
    expect(turn.toolCalls).toHaveLength(1);
    const [call] = turn.toolCalls;
    expect(call!.name).toBe("add");
    expect(call!.outcome).toBe("ok");
    expect(call!.result.structuredContent.result.result).toBe(call!.arguments.a + call!.arguments.b);
    expect(turn.status).toBe("completed");
    expect(turn.answer.length).toBeGreaterThan(0);
  });

  it("runs llm.localModel when no model server answers, saying so", async () => {
    const cwd = await project("fallback", { localModel: model });
    const run = await runCli(["run", "what is 2+3", "--approve", "all", "--json"], { cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`; using the local model ${model}.`);
    const turn = JSON.parse(run.stdout) as { provider: string; toolCalls: Array<{ outcome: string }> };
    expect(turn.provider).toBe("local");
    expect(turn.toolCalls.map((call) => call.outcome)).toEqual(["ok"]);
  });

  it("downloads hf:OWNER/REPO/FILE.gguf from HF_ENDPOINT into the cache, checked, with no bar off a terminal", async () => {
    const bytes = await readFile(model);
    const sha = createHash("sha256").update(bytes).digest("hex");
    const hub = createServer((req, res) => {
      if (req.url !== "/owner/repo/resolve/main/tiny.gguf") return res.writeHead(404).end();
      res.writeHead(200, { etag: `"${sha}"`, "content-length": bytes.length }).end(bytes);
    });
    await new Promise<void>((resolve) => hub.listen(0, "127.0.0.1", resolve));
    try {
      const cwd = await project("download");
      const cache = join(dir, "xdg-cache");
      const env = { HF_ENDPOINT: `http://127.0.0.1:${(hub.address() as { port: number }).port}`, XDG_CACHE_HOME: cache };
      const run = await runCli(["run", "what is 2+3", "--provider", "local", "--model", "hf:owner/repo/tiny.gguf", "--approve", "all", "--json"], { cwd, env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain("downloading");
      const turn = JSON.parse(run.stdout) as { model: string; toolCalls: Array<{ outcome: string }> };
      expect(turn.model).toBe("hf:owner/repo/tiny.gguf");
      expect(turn.toolCalls.map((call) => call.outcome)).toEqual(["ok"]);
      const kept = join(cache, "toolbridge", "models", "owner--repo--tiny.gguf");
      expect((await stat(kept)).mode & 0o777).toBe(0o600);
    } finally {
      hub.closeAllConnections();
      await new Promise((resolve) => hub.close(resolve));
    }
  });

  it("refuses a hostile GGUF from hf: in one line, before llama.cpp reads it", async () => {
    // 2^40 strings announced in a file of a hundred bytes: node-llama-cpp's reader grew to 3.5 GB on it.
    const u32 = (value: number) => Buffer.from(new Uint32Array([value]).buffer);
    const u64 = (value: bigint) => Buffer.from(new BigUint64Array([value]).buffer);
    const text = (value: string) => Buffer.concat([u64(BigInt(value.length)), Buffer.from(value)]);
    const bytes = Buffer.concat([Buffer.from("GGUF"), u32(3), u64(0n), u64(2n), text("general.architecture"), u32(8), text("llama"), text("tokenizer.ggml.tokens"), u32(9), u32(8), u64(2n ** 40n)]);
    const hub = createServer((_req, res) => res.writeHead(200, { "content-length": bytes.length }).end(bytes));
    await new Promise<void>((resolve) => hub.listen(0, "127.0.0.1", resolve));
    try {
      const cwd = await project("hostile");
      const cache = join(dir, "hostile-cache");
      // A heap far below what the hostile file would take: a regression crashes instead of eating the machine.
      const env = { HF_ENDPOINT: `http://127.0.0.1:${(hub.address() as { port: number }).port}`, XDG_CACHE_HOME: cache, NODE_OPTIONS: "--max-old-space-size=256" };
      const run = await runCli(["run", "hi", "--provider", "local", "--model", "hf:owner/repo/evil.gguf"], { cwd, env });
      expect(run.code).toBe(2);
      const kept = join(cache, "toolbridge", "models", "owner--repo--evil.gguf");
      expect(run.stderr.trim().split("\n").at(-1)).toBe(
        `toolbridge: The model file ${kept} is not a valid GGUF: metadata key "tokenizer.ggml.tokens": array of 1099511627776 strings is larger than the file (${bytes.length} bytes).`,
      );
    } finally {
      hub.closeAllConnections();
      await new Promise((resolve) => hub.close(resolve));
    }
  });

  it("says, offline on the first run, what was tried and the two ways on", async () => {
    const cwd = await project("offline");
    const hub = `http://127.0.0.1:${await freePort()}`;
    const env = { HF_ENDPOINT: hub, XDG_CACHE_HOME: join(dir, "offline-cache") };
    const ref = "hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf";
    const run = await runCli(["run", "What is 17 * 23?", "--provider", "local", "--model", ref], { cwd, env });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n").at(-1)).toBe(
      `toolbridge: Cannot download ${ref}: ${new URL(hub).host} cannot be reached (connection refused). Use a model server instead (--base-url URL, without --provider local) or a GGUF file already on disk (--model PATH).`,
    );
  });

  it("names a missing model file in one line", async () => {
    const cwd = await project("missing");
    const missing = join(dir, "absent.gguf");
    const run = await runCli(["run", "hi", "--provider", "local", "--model", missing], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n").at(-1)).toBe(`toolbridge: No model file at ${missing}.`);
  });

  it("names a file that is not a GGUF in one line", async () => {
    const cwd = await project("broken");
    const broken = join(cwd, "broken.gguf");
    await writeFile(broken, "<html>not a model</html>");
    const run = await runCli(["run", "hi", "--provider", "local", "--model", broken], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n").at(-1)).toBe(`toolbridge: The model file ${broken} is not a GGUF file.`);
  });

  it("says in one line how to install llama.cpp's runtime when it is not installed and nobody can be asked", async () => {
    const cwd = await project("omitted-cwd");
    const run = await runCli(["run", "hi", "--provider", "local", "--model", model], { cwd, entry: await soloCli() });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n").at(-1)).toBe(`toolbridge: ${MISSING}`);
  });

  it("on a terminal, offers to install llama.cpp's runtime on first use; declined, it says how to later and installs nothing", async () => {
    const cwd = await project("declined");
    const npm = await writeFakeNpm(join(cwd, "bin"), "install");
    const term = await Tmux.start([process.execPath, await soloCli(), "run", "hi", "--provider", "local", "--model", model], { cwd, columns: 250, env: terminalEnv(cwd, npm.bin) });
    try {
      await term.waitFor(/\[y\/N\]/);
      expect((await term.history()).replace(/\n/g, "")).toContain(`Install its CPU build (about 85 MB, from the npm registry) into ${join(cwd, ".local", "share", "toolbridge", "runtime")}?`);
      await term.type("n");
      await term.press("Enter");
      expect(await term.exitCode()).toBe(2);
      expect((await term.history()).replace(/\n/g, "")).toContain(`toolbridge: ${MISSING}`);
      expect(await npm.args()).toBeUndefined();
    } finally {
      await term.close();
    }
  });

  it("on a terminal, installs llama.cpp's runtime when the person agrees, then runs the model with it", async () => {
    const cwd = await project("agreed");
    const npm = await writeFakeNpm(join(cwd, "bin"), "install");
    const runtime = join(cwd, ".local", "share", "toolbridge", "runtime");
    const term = await Tmux.start([process.execPath, await soloCli(), "run", "what is 2+3", "--provider", "local", "--model", model, "--approve", "all"], { cwd, columns: 250, env: terminalEnv(cwd, npm.bin) });
    try {
      await term.waitFor(/\[y\/N\]/);
      await term.type("y");
      await term.press("Enter");
      expect(await term.exitCode(), await term.history()).toBe(0);
      expect(await term.history()).toMatch(/✓ add/);
      expect((await term.history()).replace(/\n/g, "")).toContain(`toolbridge: Installed node-llama-cpp 3.21.1 (CPU build) into ${runtime}.`);
      expect((await npm.args())?.slice(0, 3)).toEqual(["install", "--prefix", runtime]);
      expect((await stat(runtime)).mode & 0o777).toBe(0o700);
    } finally {
      await term.close();
    }
  });
});

describe("toolbridge install-local", () => {
  it("installs the CPU build, and a GPU build beside it only with --gpu, into the user's runtime directory", async () => {
    const cwd = await project("install-local");
    const npm = await writeFakeNpm(join(cwd, "bin"), "install");
    const env = { PATH: [npm.bin, process.env.PATH].join(":") };
    const runtime = join(cwd, ".local", "share", "toolbridge", "runtime");
    const run = await runCli(["install-local", "--gpu", "vulkan"], { cwd, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`installed node-llama-cpp 3.21.1 (CPU and vulkan builds) into ${runtime}\n`);
    expect((await npm.args())?.filter((arg) => arg.startsWith("@node-llama-cpp/"))).toEqual(binaryPackages(process.platform, process.arch, "vulkan"));
  });

  it("refuses a GPU it has no build for as a usage error", async () => {
    const cwd = await project("install-local-metal");
    const run = await runCli(["install-local", "--gpu", "metal"], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('toolbridge: --gpu: "metal" is not one of cuda, vulkan');
  });
});

/** The message when llama.cpp's runtime is not installed. */
const MISSING =
  "--provider local runs models with llama.cpp (node-llama-cpp), which is not installed: run `toolbridge install-local` to install it (CPU build; add --gpu cuda or --gpu vulkan for a GPU one), or use a model server instead (--base-url URL, without --provider local).";

let solo: string | undefined;

/** The command alone, bundled as built, where no node_modules is found above it: as a global install without node-llama-cpp. */
async function soloCli(): Promise<string> {
  if (!solo) {
    const copy = join(dir, "solo", "dist", "cli");
    await cp(dirname(CLI), copy, { recursive: true, filter: (source) => !source.endsWith(".map") });
    solo = join(copy, "main.js");
  }
  return solo;
}

/** A terminal's environment with its own HOME (so its own runtime directory), and the fake npm first on PATH. */
function terminalEnv(home: string, npmBin: string): Record<string, string> {
  return { HOME: home, XDG_CONFIG_HOME: home, NO_COLOR: "1", TERM: "xterm-256color", PATH: [npmBin, dirname(process.execPath), "/usr/bin", "/bin"].join(":") };
}
