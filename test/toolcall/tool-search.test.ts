import { describe, expect, it } from "vitest";
import { EmbeddingRanker, ToolSearchIndex, formatSearchResult, fuseRankings, toolWords } from "../../src/toolcall/tool-search.js";
import { recordedTools } from "../fixtures/llm/recorded-tools.js";

const tools = [...recordedTools("server-filesystem"), ...recordedTools("server-everything")];

describe("ToolSearchIndex", () => {
  const index = new ToolSearchIndex(tools);

  it("finds server-filesystem's tools from a task's words, not the tool's", async () => {
    expect(await index.search("show me what is inside the folder src", 5)).toContain("list_directory");
    expect(await index.search("rename notes.txt to old-notes.txt", 5)).toContain("move_file");
    expect((await index.search("reading the contents of a text file", 3))[0]).toMatch(/read_(text_)?file/);
  });

  it("matches words across camelCase, snake_case and plural forms", () => {
    expect(toolWords("readTextFile read_text_file read-text.file")).toEqual(["read", "text", "file", "read", "text", "file", "read", "text", "file"]);
    expect(index.lexical("files", 20).map((h) => h.name)).toContain("read_text_file");
  });

  it("searches a word no tool uses through its synonyms at full weight", () => {
    // "remember" is in no tool's text; "memory" is, and only there.
    const memory = new ToolSearchIndex([
      ...tools,
      { name: "recall_note", description: "Look up a note in long-term memory.", parameters: { type: "object" } },
    ]);
    expect(memory.lexical("remember the parking spot", 1).map((h) => h.name)).toEqual(["recall_note"]);
  });

  it("indexes identical definitions once and searches #channel as a channel, not its name", async () => {
    const twice = new ToolSearchIndex([
      { name: "post", server: "slack", description: "Post a message to a channel.", parameters: { type: "object" } },
      { name: "slack-2__post", server: "slack-2", description: "Post a message to a channel.", parameters: { type: "object" } },
      { name: "generate_chart", server: "chart", description: "Generate a bar chart.", parameters: { type: "object" } },
    ]);
    expect(await twice.search("post to #general", 5)).toEqual(["post"]);
    expect(twice.lexical("generate #42", 5).map((h) => h.name)).toEqual(["generate_chart"]);
  });

  it("returns at most the limit, and nothing for words no tool has", async () => {
    expect(await index.search("file", 2)).toHaveLength(2);
    expect(await index.search("zyxwv quxx", 5)).toEqual([]);
  });

  it("takes a hostile query of a megabyte without failing", async () => {
    expect(Array.isArray(await index.search("file ".repeat(200_000), 5))).toBe(true);
  });

  it("fuses an embedding ranking by reciprocal rank, and keeps the lexical one when the endpoint fails", async () => {
    // An embedding that puts a tool the lexical ranking does not have first.
    const embed = async (inputs: readonly string[]): Promise<number[][]> => inputs.map((t) => [t.startsWith("get_file_info") ? 1 : 0.01, 0.5]);
    const semantic = new ToolSearchIndex(tools, new EmbeddingRanker(async (inputs) => [[1, 0], ...(await embed(inputs.slice(1)))]));
    expect(await semantic.search("when was notes.txt changed", 3)).toContain("get_file_info");
    const failing = new ToolSearchIndex(tools, new EmbeddingRanker(async () => Promise.reject(new Error("down"))));
    expect(await failing.search("list directory", 3)).toEqual(await index.search("list directory", 3));
    expect(fuseRankings([["a", "b"], ["b", "c"]])).toEqual(["b", "a", "c"]);
  });

  it("tells the model what it found, or that nothing matched", () => {
    const found = formatSearchResult("list files", [{ name: "list_directory", description: "Get a detailed listing. More text.", parameters: { type: "object" } }]);
    expect(found).toBe("Found 1 tools; they can be called from your next step:\n- list_directory: Get a detailed listing.");
    expect(formatSearchResult("x", [])).toMatch(/^No tools matched "x"/);
  });
});
