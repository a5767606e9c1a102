import { describe, expect, it } from "vitest";
import {
  assignToolNames,
  MAX_TOOL_NAME_LENGTH,
  qualifiedName,
  sanitizeName,
  TOOL_NAME_PATTERN,
  toolNameAliases,
  type ToolRef,
} from "../../src/mcp/tool-names.js";

/** exposed name -> "server/tool", for readable assertions. */
function names(tools: ToolRef[]): Record<string, string> {
  return Object.fromEntries([...assignToolNames(tools)].map(([exposed, ref]) => [exposed, `${ref.server}/${ref.name}`]));
}

function expectAllLegalAndUnique(tools: ToolRef[]): Map<string, ToolRef> {
  const assigned = assignToolNames(tools);
  for (const name of assigned.keys()) expect(name).toMatch(TOOL_NAME_PATTERN);
  const distinct = new Set(tools.map((t) => `${t.server}\u0000${t.name}`));
  expect(assigned.size).toBe(distinct.size);
  const mappedBack = new Set([...assigned.values()].map((t) => `${t.server}\u0000${t.name}`));
  expect(mappedBack).toEqual(distinct);
  return assigned;
}

function shuffled<T>(items: T[], seed: number): T[] {
  const copy = [...items];
  let state = seed;
  for (let i = copy.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

describe("sanitizeName", () => {
  it("keeps a legal name unchanged", () => {
    expect(sanitizeName("get-sum_2")).toBe("get-sum_2");
  });

  it("replaces dots, slashes, spaces and colons with underscores", () => {
    expect(sanitizeName("fs.read file/v2:x")).toBe("fs_read_file_v2_x");
  });

  it("replaces each unicode character (even outside the BMP) with exactly one underscore", () => {
    expect(sanitizeName("天气")).toBe("__");
    expect(sanitizeName("a😀b")).toBe("a_b");
    expect(sanitizeName("café")).toBe("caf_");
  });

  it("turns an empty name into a legal one", () => {
    expect(sanitizeName("")).toMatch(TOOL_NAME_PATTERN);
  });
});

describe("assignToolNames", () => {
  it("keeps names as the servers give them while they are unique", () => {
    expect(names([
      { server: "math", name: "add" },
      { server: "time", name: "get-date" },
    ])).toEqual({ add: "math/add", "get-date": "time/get-date" });
  });

  it("qualifies BOTH tools of a cross-server collision as server__tool, leaving the others plain", () => {
    expect(names([
      { server: "github", name: "search" },
      { server: "web", name: "search" },
      { server: "web", name: "fetch" },
    ])).toEqual({ github__search: "github/search", web__search: "web/search", fetch: "web/fetch" });
  });

  it("qualifies every member of a three-way collision", () => {
    const assigned = names([
      { server: "a", name: "read" },
      { server: "b", name: "read" },
      { server: "c", name: "read" },
    ]);
    expect(Object.keys(assigned).sort()).toEqual(["a__read", "b__read", "c__read"]);
  });

  it("gives the same names whatever order the servers connected in", () => {
    const tools: ToolRef[] = [
      { server: "one", name: "search" },
      { server: "two", name: "search" },
      { server: "two", name: "a.b" },
      { server: "two", name: "a_b" },
      { server: "three", name: "x".repeat(80) },
      { server: "four", name: `${"x".repeat(80)}y` },
      { server: "five", name: "天气" },
      { server: "five", name: "新闻" },
    ];
    const expected = [...assignToolNames(tools)];
    for (let seed = 1; seed <= 20; seed++) expect([...assignToolNames(shuffled(tools, seed))]).toEqual(expected);
  });

  it("exposes a tool with illegal characters under its sanitized name and maps it back", () => {
    const assigned = assignToolNames([{ server: "fs", name: "read.file" }]);
    expect(assigned.get("read_file")).toEqual({ server: "fs", name: "read.file" });
  });

  it("resolves a collision that sanitizing created between servers", () => {
    const assigned = expectAllLegalAndUnique([
      { server: "a", name: "files.read" },
      { server: "b", name: "files_read" },
    ]);
    expect(assigned.get("a__files_read")).toEqual({ server: "a", name: "files.read" });
    expect(assigned.get("b__files_read")).toEqual({ server: "b", name: "files_read" });
  });

  it("resolves a collision that sanitizing created inside one server (a.b and a_b)", () => {
    const assigned = expectAllLegalAndUnique([
      { server: "s", name: "a.b" },
      { server: "s", name: "a_b" },
    ]);
    expect(assigned.has("a_b")).toBe(false);
    for (const name of assigned.keys()) expect(name.startsWith("s__a_b_")).toBe(true);
  });

  it("separates unicode names that all sanitize to underscores", () => {
    const assigned = expectAllLegalAndUnique([
      { server: "news", name: "天气" },
      { server: "news", name: "新闻" },
      { server: "news", name: "股票" },
    ]);
    expect(assigned.size).toBe(3);
  });

  it("keeps a name of exactly 64 characters as it is", () => {
    const name = "t".repeat(MAX_TOOL_NAME_LENGTH);
    expect([...assignToolNames([{ server: "s", name }]).keys()]).toEqual([name]);
  });

  it("cuts a 65-character name to 64 with a hash suffix", () => {
    const [exposed] = assignToolNames([{ server: "s", name: "t".repeat(65) }]).keys();
    expect(exposed).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(exposed).toMatch(/^t{55}_[0-9a-f]{8}$/);
  });

  it("never lets two long names sharing their first 64 characters collide after cutting", () => {
    const prefix = "very_long_tool_name_".repeat(4);
    const assigned = expectAllLegalAndUnique([
      { server: "s", name: `${prefix}alpha` },
      { server: "s", name: `${prefix}beta` },
    ]);
    for (const name of assigned.keys()) expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
  });

  it("derives the hash suffix from the full original name, so it is stable across runs and servers", () => {
    const long = "q".repeat(100);
    const first = [...assignToolNames([{ server: "a", name: long }]).keys()][0];
    const second = [...assignToolNames([{ server: "b", name: long }, { server: "b", name: "other" }]).keys()].find((n) => n !== "other");
    expect(first).toBe(second);
    // Pinned: a change of scheme would rename users' tools, so it must be noticed.
    expect(first).toBe(`${"q".repeat(55)}_8fd9856b`);
  });

  it("keeps a qualified name legal when server and tool together exceed 64 characters", () => {
    const tool = "t".repeat(50);
    const assigned = expectAllLegalAndUnique([
      { server: "a-server-with-a-long-name", name: tool },
      { server: "another-server-with-a-long-name", name: tool },
    ]);
    for (const name of assigned.keys()) expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
  });

  it("sanitizes server names with illegal characters inside qualified names", () => {
    expect(names([
      { server: "my server.v2", name: "run" },
      { server: "other", name: "run" },
    ])).toEqual({ my_server_v2__run: "my server.v2/run", other__run: "other/run" });
  });

  it("resolves a qualified name colliding with another server's plain tool name", () => {
    const assigned = expectAllLegalAndUnique([
      { server: "a", name: "c" },
      { server: "x", name: "c" },
      { server: "z", name: "a__c" },
    ]);
    expect(assigned.get("x__c")).toEqual({ server: "x", name: "c" });
  });

  it("lists a tool a server reports twice only once", () => {
    expect(names([
      { server: "s", name: "dup" },
      { server: "s", name: "dup" },
    ])).toEqual({ dup: "s/dup" });
  });

  it("maps names and aliases to the very objects given, the first of a repeated tool", () => {
    const first: ToolRef = { server: "s", name: "dup" };
    const repeat: ToolRef = { server: "s", name: "dup" };
    const other: ToolRef = { server: "t", name: "x" };
    expect(assignToolNames([first, other, repeat]).get("dup")).toBe(first);
    expect(assignToolNames([first, other, repeat]).get("x")).toBe(other);
    expect(toolNameAliases([first, other, repeat]).get("s__dup")).toBe(first);
  });

  it("stays legal and unique over a large random mix of hostile names", () => {
    const alphabet = ["a", "b", ".", "_", "-", " ", "é", "😀", "/", "1"];
    const tools: ToolRef[] = [];
    let state = 7;
    const next = (n: number): number => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % n;
    };
    for (let i = 0; i < 600; i++) {
      const length = 1 + next(i % 10 === 0 ? 90 : 4);
      let name = "";
      for (let j = 0; j < length; j++) name += alphabet[next(alphabet.length)];
      tools.push({ server: ["s1", "s.2", "s_2", "s-3"][next(4)] as string, name });
    }
    const assigned = expectAllLegalAndUnique(tools);
    expect([...assignToolNames(shuffled(tools, 3))]).toEqual([...assigned]);
  });
});

describe("qualifiedName and toolNameAliases", () => {
  it("joins server and tool with a double underscore", () => {
    expect(qualifiedName("everything", "get-sum")).toBe("everything__get-sum");
  });

  it("offers server__tool for a tool exposed under its plain name, also with the original spelling", () => {
    const aliases = toolNameAliases([{ server: "fs", name: "read.file" }]);
    expect(aliases.get("fs__read_file")).toEqual({ server: "fs", name: "read.file" });
    expect(aliases.get("fs__read.file")).toEqual({ server: "fs", name: "read.file" });
  });

  it("leaves out an alias two tools would share", () => {
    const aliases = toolNameAliases([
      { server: "s", name: "a.b" },
      { server: "s", name: "a_b" },
    ]);
    expect(aliases.has("s__a_b")).toBe(false);
    expect(aliases.get("s__a.b")).toEqual({ server: "s", name: "a.b" });
  });
});
