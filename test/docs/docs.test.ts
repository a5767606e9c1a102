/**
 * The docs stay true: every command line they show runs (the built CLI, a temporary home, the scripted vLLM-like
 * server standing in for a model server), every generated reference is what its generator writes today, and every
 * relative link and #anchor resolves.
 *
 * A block that cannot run here (installing, a server that runs until stopped, a hosted API) is marked by the line
 * before its fence: `<!-- docs-test: skip REASON -->`. The list of those is kept short and printed by one test. A
 * block whose text says a variable must be set gets it from `<!-- docs-test: env NAME=VALUE ... -->` there instead.
 */
import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { headingAnchor } from "../../scripts/docs/markdown.js";
import { GENERATED } from "../../scripts/gen-docs.js";
import { CLI } from "../support/cli.js";
import { startVllmServer, type VllmReply } from "../support/vllm-server.js";

const ROOT = resolve(import.meta.dirname, "../..");
/** The model server address the docs write; each block's commands get the scripted server's instead. */
const DOCS_BASE_URL = "http://127.0.0.1:8000/v1";
/** Blocks run at once: each starts servers and a CLI, on a machine of two cores. */
const PARALLEL = 3;
/** One command line may take this long before it is killed and reported. */
const LINE_TIMEOUT_MS = 90_000;

interface Page {
  path: string;
  text: string;
}

interface Block {
  page: string;
  line: number;
  commands: string[];
  skip?: string;
  /** Variables the docs tell the reader to set first. */
  env: Record<string, string>;
}

async function markdownPages(): Promise<Page[]> {
  const paths = ["README.md", ...(await readdir(join(ROOT, "docs"), { recursive: true })).filter((file) => file.endsWith(".md")).map((file) => join("docs", file))];
  return Promise.all(paths.sort().map(async (path) => ({ path, text: await readFile(join(ROOT, path), "utf8") })));
}

/** ```sh blocks: each line a command (a trailing `\` joins the next); ```console blocks: the lines after `$ `. */
function commandBlocks(page: Page): Block[] {
  const lines = page.text.split("\n");
  const blocks: Block[] = [];
  for (let at = 0; at < lines.length; at++) {
    const fence = /^```(\w*)\s*$/.exec(lines[at]!);
    if (!fence) continue;
    const language = fence[1]!;
    const start = at;
    const body: string[] = [];
    for (at++; at < lines.length && !/^```\s*$/.test(lines[at]!); at++) body.push(lines[at]!);
    if (language !== "sh" && language !== "console") continue;
    const commands: string[] = [];
    let pending = "";
    for (const raw of body) {
      const line = language === "console" ? (raw.startsWith("$ ") ? raw.slice(2) : pending ? raw : undefined) : raw;
      if (line === undefined || (!pending && line.trim() === "")) continue;
      if (line.endsWith("\\")) pending += `${line.slice(0, -1)}\n`;
      else {
        commands.push(pending + line);
        pending = "";
      }
    }
    const mark = lines[start - 1] ?? "";
    const skip = /^<!-- docs-test: skip (.+?) -->$/.exec(mark)?.[1];
    const env = Object.fromEntries(
      (/^<!-- docs-test: env (.+?) -->$/.exec(mark)?.[1] ?? "")
        .split(" ")
        .filter(Boolean)
        .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
    );
    blocks.push({ page: page.path, line: start + 1, commands, env, ...(skip ? { skip } : {}) });
  }
  return blocks;
}

/**
 * The scripted model: a call of `add` when asked for one (as `models probe` asks: natively when tools are offered,
 * as a Hermes `<tool_call>` in prompt mode), an answer naming the tool's result after a call, and a plain answer
 * to anything else.
 */
function docsModel(body: { messages: { role: string; content?: unknown }[]; tools?: unknown[] }): VllmReply {
  const last = body.messages.at(-1);
  const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
  if (last?.role === "tool") return { text: `The tool said: ${text.slice(0, 200)}` };
  const asked = /Call the add tool with a = (\d+) and b = (\d+)/.exec(text);
  if (asked) {
    const call = { name: "add", arguments: { a: Number(asked[1]), b: Number(asked[2]) } };
    return body.tools?.length ? { toolCalls: [call] } : { text: `<tool_call>${JSON.stringify(call)}</tool_call>` };
  }
  return { text: "This is the scripted model's answer." };
}

interface LineRun {
  command: string;
  code: number | null;
  output: string;
}

function runLine(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<LineRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("sh", ["-c", command], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    const keep = (chunk: Buffer): void => {
      if (output.length < 20_000) output += chunk.toString();
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => {
      output += `\n[docs test: killed after ${LINE_TIMEOUT_MS / 1000} s]`;
      process.kill(-child.pid!, "SIGKILL");
    }, LINE_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ command, code, output });
    });
  });
}

const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Runs a block's lines in order in a home of its own, with `toolbridge` on PATH as the built CLI. */
async function runBlock(block: Block): Promise<LineRun[]> {
  const home = await mkdtemp(join(tmpdir(), "toolbridge-docs-"));
  scratch.push(home);
  const bin = join(home, ".bin");
  const work = join(home, "work");
  await mkdir(bin);
  await mkdir(work);
  await writeFile(join(bin, "toolbridge"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  await chmod(join(bin, "toolbridge"), 0o755);
  const server = await startVllmServer({ respond: docsModel });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local/state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    NO_COLOR: "1",
    ...block.env,
  };
  for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "FORCE_COLOR", "TOOLBRIDGE_DEBUG"]) delete env[name];
  // A command that names no model server finds the scripted one, as it would find a vLLM on its default address.
  env.OPENAI_BASE_URL = server.url;
  const runs: LineRun[] = [];
  try {
    for (const command of block.commands) {
      const line = command.replace(/\bnpx toolbridge\b/g, "toolbridge").replaceAll(DOCS_BASE_URL, server.url);
      const run = await runLine(line, work, env);
      runs.push({ ...run, command });
      if (run.code !== 0) break;
    }
  } finally {
    await server.close();
  }
  return runs;
}

/** Runs `jobs` with at most `limit` at once, in order of their results. */
async function inParallel<T, R>(items: T[], limit: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await job(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The anchors of a page's headings, as GitHub makes them: repeats get `-1`, `-2`. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const plain = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const slug = headingAnchor(plain);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Markdown links outside code: `[text](target)`. */
function links(text: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  let fenced = false;
  text.split("\n").forEach((line, index) => {
    if (/^```/.test(line)) fenced = !fenced;
    if (fenced) return;
    const prose = line.replace(/`[^`]*`/g, "");
    for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) found.push({ target: match[1]!, line: index + 1 });
  });
  return found;
}

const pages = await markdownPages();
const blocks = pages.flatMap(commandBlocks);

describe("the docs", () => {
  it("have a page for every area, each linked from the README", () => {
    const readme = pages.find((page) => page.path === "README.md")!;
    const docs = pages.filter((page) => page.path.startsWith("docs/")).map((page) => page.path);
    for (const page of ["getting-started", "configuration", "cli", "chat", "models", "gateway", "web-chat", "mcp", "security", "troubleshooting", "architecture"]) {
      expect(docs).toContain(`docs/${page}.md`);
    }
    for (const page of docs) expect(readme.text, `README links to ${page}`).toContain(`](${page}`);
    expect(readme.text.split("\n").length).toBeLessThanOrEqual(260);
  });

  it("keep every generated reference as its generator writes it today", async () => {
    for (const [path, render] of Object.entries(GENERATED)) {
      const onDisk = await readFile(join(ROOT, path), "utf8");
      expect(onDisk === render(), `${path} is out of date: run \`npm run docs\``).toBe(true);
    }
  });

  it("link only to files and headings that exist", async () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const { target, line } of links(page.text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http(s), mailto: not checked here
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const file = path === "" ? join(ROOT, page.path) : resolve(ROOT, dirname(page.path), decodeURIComponent(path));
        const where = `${page.path}:${line} → ${target}`;
        if (relative(ROOT, file).startsWith("..")) {
          broken.push(`${where} (outside the repository)`);
          continue;
        }
        let text: string;
        try {
          text = await readFile(file, "utf8");
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EISDIR") continue;
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (anchor !== undefined && !anchors(text).has(anchor)) broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("mark only a few command blocks as not runnable here", () => {
    const skipped = blocks.filter((block) => block.skip).map((block) => `${block.page}:${block.line} ${block.skip}`);
    expect(skipped.length, skipped.join("\n")).toBeLessThanOrEqual(12);
  });

  it("show command lines that all run", { timeout: 600_000 }, async () => {
    const runnable = blocks.filter((block) => !block.skip && block.commands.length > 0);
    expect(runnable.length).toBeGreaterThan(5);
    const results = await inParallel(runnable, PARALLEL, runBlock);
    const failed = results.flatMap((runs, index) =>
      runs.filter((run) => run.code !== 0).map((run) => `${runnable[index]!.page}:${runnable[index]!.line} \`${run.command}\` exited ${run.code}:\n${run.output.slice(-1500)}`),
    );
    expect(failed).toEqual([]);
  });
});
