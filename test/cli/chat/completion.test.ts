import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { complete, MAX_CANDIDATE_CHARS, MAX_CANDIDATES, MAX_TEMPLATE_REQUESTS, templateSegments, type CompletionSources } from "../../../src/cli/chat/completion.js";
import { completePaths } from "../../../src/cli/chat/completion-sources.js";
import { promptCommands } from "../../../src/cli/chat/prompt-commands.js";
import type { HubPrompt, HubResourceTemplate } from "../../../src/mcp/types.js";

const team: HubPrompt = {
  server: "hr",
  name: "promote",
  arguments: [
    { name: "department", required: true },
    { name: "name", required: true },
  ],
};
const people: Record<string, string[]> = { Engineering: ["Alice", "Bob"], Sales: ["Dave Smith"] };
const asked: Array<{ argument: string; value: string; context: Record<string, string> }> = [];
const template: HubResourceTemplate = { server: "docs", name: "page", uriTemplate: "docs://{book}/page/{page}" };

function sources(overrides: Partial<CompletionSources> = {}): CompletionSources {
  return {
    builtins: [
      { name: "help", help: "this list" },
      { name: "tools", help: "list the tools" },
      { name: "load", help: "load" },
    ],
    promptCommands: async () => promptCommands([team], ["help", "tools", "load"]),
    completePromptArgument: async (_prompt, argument, value, context) => {
      asked.push({ argument, value, context });
      const all = argument === "department" ? Object.keys(people) : (people[context.department ?? ""] ?? []);
      return all.filter((item) => item.startsWith(value));
    },
    resources: async () => [
      { uri: "docs://intro", name: "Introduction" },
      { uri: "docs://install" },
      { uri: "mail://inbox" },
    ],
    resourceTemplates: async () => [template],
    completeTemplateVariable: async (_template, variable, value, context) => {
      asked.push({ argument: variable, value, context });
      return variable === "book" ? ["guide", "gamma"].filter((b) => b.startsWith(value)) : ["1", "2"];
    },
    toolNames: () => ["time__get_date", "time__convert", "math__add"],
    modelNames: async () => ["Qwen/Qwen3-8B", "Qwen/Qwen3-32B", "llama-3.1-8b"],
    skills: () => [
      { name: "pdf-processing", server: "docs", description: "Extract text from PDFs" },
      { name: "release-notes", server: "docs", description: "Write release notes" },
      { name: "release-notes", server: "other", description: "Another server's" },
    ],
    paths: async () => [],
    ...overrides,
  };
}

const run = (text: string, s = sources()) => complete(text, text.length, s, new AbortController().signal);

describe("completion: slash commands", () => {
  it("completes the models the server lists after /model", async () => {
    expect(await run("/model Qwen")).toMatchObject({ from: 7, to: 11, candidates: [{ insert: "Qwen/Qwen3-8B " }, { insert: "Qwen/Qwen3-32B " }] });
  });

  it("offers built-ins and prompt commands that start with what is typed, each followed by a space", async () => {
    expect(await run("/")).toMatchObject({ from: 0, to: 1, candidates: [{ insert: "/help " }, { insert: "/tools " }, { insert: "/load " }, { insert: "/promote " }] });
    expect((await run("/pro"))?.candidates.map((c) => c.insert)).toEqual(["/promote "]);
    expect(await run("/nothing")).toBeUndefined();
  });

  it("offers nothing for plain text", async () => {
    expect(await run("hello wor")).toBeUndefined();
  });
});

describe("completion: prompt arguments through completion/complete", () => {
  it("asks for the argument at the cursor with the earlier arguments as context", async () => {
    asked.length = 0;
    expect((await run("/promote Eng"))?.candidates.map((c) => c.insert)).toEqual(["Engineering "]);
    expect(asked.at(-1)).toEqual({ argument: "department", value: "Eng", context: {} });
    const names = await run("/promote Engineering ");
    expect(names).toMatchObject({ from: 21, to: 21 });
    expect(names?.candidates.map((c) => c.insert)).toEqual(["Alice ", "Bob "]);
    expect(asked.at(-1)).toEqual({ argument: "name", value: "", context: { department: "Engineering" } });
  });

  it("completes name=value, and quotes a value with a space", async () => {
    expect((await run("/promote name=D department=Sal"))?.candidates.map((c) => c.insert)).toEqual(["department=Sales "]);
    const named = await run("/promote department=Sales name=D");
    expect(named).toMatchObject({ from: 26, to: 32 });
    expect(named?.candidates.map((c) => c.insert)).toEqual(['name="Dave Smith" ']);
  });

  it("replaces a quoted word whole", async () => {
    const result = await run('/promote "Sal');
    expect(result).toMatchObject({ from: 9, to: 13 });
    expect(result?.candidates.map((c) => c.insert)).toEqual(["Sales "]);
  });

  it("offers nothing past the prompt's last argument, or when the server gives nothing", async () => {
    expect(await run("/promote Sales Dave extra")).toBeUndefined();
    expect(await run("/promote Eng", sources({ completePromptArgument: async () => [] }))).toBeUndefined();
  });

  it("leaves out a server's values with control characters or past the length bound", async () => {
    const hostile = ["ok", "two\nlines", "\x1b]2;PWNED\x07", "\x9bm", "x".repeat(MAX_CANDIDATE_CHARS + 1)];
    expect((await run("/promote ", sources({ completePromptArgument: async () => hostile })))?.candidates.map((c) => c.insert)).toEqual(["ok "]);
  });

  it("bounds the list", async () => {
    const many = Array.from({ length: 500 }, (_, i) => `v${i}`);
    expect((await run("/promote ", sources({ completePromptArgument: async () => many })))?.candidates).toHaveLength(MAX_CANDIDATES);
  });
});

describe("completion: @ resource URIs", () => {
  it("offers listed resources and the literal start of templates", async () => {
    const result = await run("see @docs://in");
    expect(result).toMatchObject({ from: 4, to: 14 });
    expect(result?.candidates.map((c) => c.insert)).toEqual(["@docs://intro ", "@docs://install "]);
    expect((await run("@do"))?.candidates.map((c) => c.insert)).toEqual(["@docs://intro ", "@docs://install ", "@docs://"]);
  });

  it("completes a template's variables through the server, the earlier ones as context", async () => {
    asked.length = 0;
    expect((await run("@docs://g"))?.candidates.map((c) => c.insert)).toEqual(["@docs://guide", "@docs://gamma"]);
    expect((await run("@docs://guide/pa"))?.candidates.map((c) => c.insert)).toEqual(["@docs://guide/page/"]);
    expect((await run("@docs://guide/page/"))?.candidates.map((c) => c.insert)).toEqual(["@docs://guide/page/1 ", "@docs://guide/page/2 "]);
    expect(asked.at(-1)).toEqual({ argument: "page", value: "", context: { book: "guide" } });
  });

  it("asks the servers about at most MAX_TEMPLATE_REQUESTS templates per Tab", async () => {
    let requests = 0;
    const templates = Array.from({ length: 30 }, (_, i) => ({ server: "s", name: `t${i}`, uriTemplate: `t${i}://{x}` }));
    const s = sources({
      resourceTemplates: async () => templates,
      completeTemplateVariable: async () => {
        requests += 1;
        return [];
      },
    });
    await run("@t1", s);
    expect(requests).toBe(0);
    await Promise.all(templates.map((template) => run(`@${template.name}://`, s)));
    expect(requests).toBe(30);
    requests = 0;
    await run("@", sources({ resourceTemplates: async () => templates.map((t) => ({ ...t, uriTemplate: "{x}" })), completeTemplateVariable: s.completeTemplateVariable }));
    expect(requests).toBe(MAX_TEMPLATE_REQUESTS);
  });

  it("reads only plain {name} variables", () => {
    expect(templateSegments("a://{x}/b")).toEqual([{ literal: "a://" }, { variable: "x" }, { literal: "/b" }]);
    expect(templateSegments("a://{+path}")).toBeUndefined();
  });
});

describe("completion: tools and paths", () => {
  it("completes a tool name after /tools", async () => {
    expect((await run("/tools time__"))?.candidates.map((c) => c.insert)).toEqual(["time__get_date ", "time__convert "]);
  });

  it("completes a skill after /skills with its summary, qualified by its server where two servers share the name", async () => {
    expect((await run("/skills "))?.candidates).toEqual([
      { insert: "pdf-processing ", label: "pdf-processing", detail: "Extract text from PDFs" },
      { insert: "docs:release-notes ", label: "docs:release-notes", detail: "Write release notes" },
      { insert: "other:release-notes ", label: "other:release-notes", detail: "Another server's" },
    ]);
    expect((await run("/skills pdf"))?.candidates.map((c) => c.insert)).toEqual(["pdf-processing "]);
  });

  const dir = mkdtempSync(join(tmpdir(), "toolbridge-complete-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "saved"));
  writeFileSync(join(dir, "saved", "one.jsonl"), "");
  writeFileSync(join(dir, "saved", "two words.jsonl"), "");
  writeFileSync(join(dir, ".hidden"), "");

  it("lists a directory's entries, directories with a slash, hidden ones only when asked", async () => {
    const signal = new AbortController().signal;
    expect(await completePaths("", dir, signal)).toEqual(["saved/"]);
    expect(await completePaths(".h", dir, signal)).toEqual([".hidden"]);
    expect(await completePaths("saved/", dir, signal)).toEqual(["saved/one.jsonl", "saved/two words.jsonl"]);
    expect(await completePaths(`${dir}/sa`, "/", signal)).toEqual([`${dir}/saved/`]);
    expect(await completePaths("missing/", dir, signal)).toEqual([]);
  });

  it("completes paths after /load and /roots add, quoting a name with a space", async () => {
    const s = sources({ paths: (partial, signal) => completePaths(partial, dir, signal) });
    expect((await run("/load saved/t", s))?.candidates.map((c) => c.insert)).toEqual(['"saved/two words.jsonl" ']);
    expect((await run("/load s", s))?.candidates.map((c) => c.insert)).toEqual(["saved/"]);
    expect((await run("/roots a", s))?.candidates.map((c) => c.insert)).toEqual(["add "]);
    expect((await run("/roots add sa", s))?.candidates.map((c) => c.insert)).toEqual(["saved/"]);
  });
});
