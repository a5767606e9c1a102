/**
 * The call format each open model family was trained on, from its chat template: how prompt
 * mode asks for calls, how earlier calls are written back into the history, and how results
 * are sent back. The model's name picks the family; anything unknown gets Hermes/Qwen's
 * `<tool_call>`, which most open models read. Every format here is one the parser reads.
 */
import type { PromptFormat } from "../config/schema.js";
import type { ToolCall } from "../llm/types.js";
import { DSML, FUNCTION_GEMMA, GEMMA4, MINIMAX, MINIMAX_NS, OLMO3, SEED, STEP3 } from "./call-regions.js";
import { gemmaValue } from "./gemma-calls.js";
import { pythonValue } from "./pythonic.js";
import { XTML, xtmlType } from "./xtml-calls.js";

export type { PromptFormat };

export interface ToolResultText {
  name: string;
  id: string;
  isError: boolean;
}

export interface PromptFamily {
  format: PromptFormat;
  /** How to call, in one sentence, before the example. */
  instruction: string;
  /** Earlier calls of one assistant turn, as the model writes them (also the prompt's example). */
  formatCalls(calls: readonly ToolCall[]): string;
  /** What goes before and after one result in the user turn that carries results back. */
  resultOpen(result: ToolResultText, index: number): string;
  resultClose(result: ToolResultText): string;
  /** What closes the whole run of results, when the template wraps them all (DeepSeek V3's outputs section). */
  resultsEnd?: string;
  /** How the prompt names the results, e.g. "<tool_response> blocks". */
  resultsAre: string;
}

/** Arguments as compact JSON text; what the model wrote is kept, as a string, when it is not JSON. */
export function argumentsJson(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw));
  } catch {
    return JSON.stringify(raw);
  }
}

function argumentsObject(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** `{"name": ..., "arguments": {...}}`: one call as Hermes, Mistral and Granite write it. */
const callJson = (c: ToolCall): string => `{"name": ${JSON.stringify(c.name)}, "arguments": ${argumentsJson(c.arguments)}}`;

const attr = (value: string): string => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
const errorMark = (r: ToolResultText): string => (r.isError ? " (error)" : "");

/** `<tool_response name=... id=...>` blocks: Hermes/Qwen, GLM and Granite 4 read results this way. */
const toolResponse = {
  resultOpen: (r: ToolResultText, i: number) =>
    `${i > 0 ? "\n" : ""}<tool_response name="${attr(r.name)}" id="${attr(r.id)}"${r.isError ? ' error="true"' : ""}>\n`,
  resultClose: () => "\n</tool_response>",
  resultsAre: "<tool_response> blocks",
};

const HERMES: PromptFamily = {
  format: "hermes",
  instruction: "To call a tool, reply with a JSON object holding its name and arguments inside <tool_call></tool_call> tags, one block per call:",
  formatCalls: (calls) =>
    calls.map((c) => `<tool_call>\n${callJson(c)}\n</tool_call>`).join("\n"),
  ...toolResponse,
};

/** Llama 3.1/3.2/3.3/4 templates: a bare JSON object with `parameters`; results come back as the ipython turn's text. */
const LLAMA: PromptFamily = {
  format: "llama",
  instruction: 'To call a tool, reply with only a JSON object in the format {"name": function name, "parameters": dictionary of argument name and its value}, one per line for several calls:',
  formatCalls: (calls) => calls.map((c) => `{"name": ${JSON.stringify(c.name)}, "parameters": ${argumentsJson(c.arguments)}}`).join("\n"),
  resultOpen: (r, i) => `${i > 0 ? "\n\n" : ""}[ipython] ${r.name}${errorMark(r)}:\n`,
  resultClose: () => "",
  resultsAre: "[ipython] messages",
};

/** Mistral 7B v0.3, Nemo, Mixtral: one `[TOOL_CALLS]` and a JSON list; each result in `[TOOL_RESULTS]`. */
const MISTRAL: PromptFamily = {
  format: "mistral",
  instruction: "To call tools, reply with [TOOL_CALLS] followed by a JSON list of calls:",
  formatCalls: (calls) => `[TOOL_CALLS][${calls.map(callJson).join(", ")}]`,
  resultOpen: (r) => `[TOOL_RESULTS]${r.isError ? "Error: " : ""}`,
  resultClose: () => "[/TOOL_RESULTS]",
  resultsAre: "[TOOL_RESULTS] blocks",
};

/** Mistral Small 3.2, Magistral, Devstral, Ministral 3 (tokenizer v11+): `[TOOL_CALLS]name[ARGS]{...}` per call. */
const MISTRAL_V11: PromptFamily = {
  ...MISTRAL,
  format: "mistral-v11",
  instruction: "To call a tool, write [TOOL_CALLS], the tool's name, [ARGS] and a JSON object of its arguments; repeat for several calls:",
  formatCalls: (calls) => calls.map((c) => `[TOOL_CALLS]${c.name}[ARGS]${argumentsJson(c.arguments)}`).join(""),
};

const DS = { begin: "<｜tool▁calls▁begin｜>", end: "<｜tool▁calls▁end｜>", callBegin: "<｜tool▁call▁begin｜>", callEnd: "<｜tool▁call▁end｜>", sep: "<｜tool▁sep｜>" };
const deepseekResults = {
  resultOpen: (r: ToolResultText) => `<｜tool▁output▁begin｜>${r.name}${errorMark(r)}: `,
  resultClose: () => "<｜tool▁output▁end｜>",
  resultsAre: "<｜tool▁output▁begin｜> blocks",
};

/**
 * DeepSeek V3 and R1: `function<｜tool▁sep｜>NAME` and the arguments in a json fence; their
 * template puts a run of results in `<｜tool▁outputs▁begin｜>`...`<｜tool▁outputs▁end｜>` (V3.1 dropped it).
 */
const DEEPSEEK: PromptFamily = {
  format: "deepseek",
  instruction: `To call tools, reply with ${DS.begin}, then for each call ${DS.callBegin}function${DS.sep}, the tool's name, its arguments as JSON in a json code block, and ${DS.callEnd}; end with ${DS.end}:`,
  formatCalls: (calls) =>
    `${DS.begin}${calls.map((c) => `${DS.callBegin}function${DS.sep}${c.name}\n\`\`\`json\n${argumentsJson(c.arguments)}\n\`\`\`${DS.callEnd}`).join("")}${DS.end}`,
  ...deepseekResults,
  resultOpen: (r, i) => `${i === 0 ? "<｜tool▁outputs▁begin｜>" : ""}${deepseekResults.resultOpen(r)}`,
  resultsEnd: "<｜tool▁outputs▁end｜>",
};

/** DeepSeek V3.1 and later: `NAME<｜tool▁sep｜>{...}`. */
const DEEPSEEK_V31: PromptFamily = {
  format: "deepseek-v31",
  instruction: `To call tools, reply with ${DS.begin}, then for each call ${DS.callBegin}, the tool's name, ${DS.sep}, its arguments as JSON and ${DS.callEnd}; end with ${DS.end}:`,
  formatCalls: (calls) => `${DS.begin}${calls.map((c) => `${DS.callBegin}${c.name}${DS.sep}${argumentsJson(c.arguments)}${DS.callEnd}`).join("")}${DS.end}`,
  ...deepseekResults,
};

/** GLM-4.5/4.6/4.7: the name, then `<arg_key>`/`<arg_value>` pairs, inside `<tool_call>`. */
const GLM: PromptFamily = {
  format: "glm",
  instruction: "To call a tool, write <tool_call>, the tool's name, then each argument as <arg_key>name</arg_key><arg_value>value</arg_value> (strings as they are, anything else as JSON), and </tool_call>:",
  formatCalls: (calls) =>
    calls
      .map((c) => {
        const args = Object.entries(argumentsObject(c.arguments)).map(
          ([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${typeof v === "string" ? v : JSON.stringify(v)}</arg_value>\n`,
        );
        return `<tool_call>${c.name}\n${args.join("")}</tool_call>`;
      })
      .join("\n"),
  ...toolResponse,
};

/** Kimi K2: a tool-call section with `functions.NAME:IDX` ids; results as `## Return of` sections. */
const KIMI: PromptFamily = {
  format: "kimi",
  instruction:
    "To call tools, write <|tool_calls_section_begin|>, then for each call <|tool_call_begin|>functions.NAME:INDEX<|tool_call_argument_begin|> and its arguments as JSON and <|tool_call_end|>; end with <|tool_calls_section_end|>:",
  formatCalls: (calls) =>
    `<|tool_calls_section_begin|>${calls
      .map((c, i) => `<|tool_call_begin|>functions.${c.name}:${i}<|tool_call_argument_begin|>${argumentsJson(c.arguments)}<|tool_call_end|>`)
      .join("")}<|tool_calls_section_end|>`,
  resultOpen: (r, i) => `${i > 0 ? "\n\n" : ""}## Return of ${r.id} (${r.name})${errorMark(r)}\n`,
  resultClose: () => "",
  resultsAre: "## Return of sections",
};

/** gpt-oss Harmony: a commentary-channel message to `functions.NAME`; results are messages from the tool. */
const GPT_OSS: PromptFamily = {
  format: "gpt-oss",
  instruction: "To call a tool, write a commentary message to it: <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>, its arguments as JSON, then <|call|>:",
  formatCalls: (calls) =>
    calls.map((c) => `<|channel|>commentary to=functions.${c.name} <|constrain|>json<|message|>${argumentsJson(c.arguments)}<|call|>`).join(""),
  resultOpen: (r, i) => `${i > 0 ? "\n" : ""}<|start|>functions.${r.name} to=assistant<|channel|>commentary<|message|>`,
  resultClose: () => "<|end|>",
  resultsAre: "messages from functions.NAME",
};

/** Granite 3.x: `<|tool_call|>` and a JSON list; results in the tool_response role, here `<tool_response>`. */
const GRANITE: PromptFamily = {
  format: "granite",
  instruction: "To call tools, reply with <|tool_call|> followed by a JSON list of calls:",
  formatCalls: (calls) => `<|tool_call|>[${calls.map(callJson).join(", ")}]`,
  ...toolResponse,
};

/** Each argument as its text when a string, as JSON otherwise: how the XML-style templates write values. */
const argumentEntries = (c: ToolCall): Array<[string, string, boolean]> =>
  Object.entries(argumentsObject(c.arguments)).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v), typeof v === "string"]);

/**
 * Qwen3-Coder's `<function=NAME><parameter=K>\nV\n</parameter></function>`, also Seed-OSS's
 * call body, whose template writes each value flush against its tags.
 */
const functionXml = (c: ToolCall, flush = false): string => {
  const nl = flush ? "" : "\n";
  return `<function=${c.name}>\n${argumentEntries(c).map(([k, v]) => `<parameter=${k}>${nl}${v}${nl}</parameter>\n`).join("")}</function>`;
};

const XML_ARGS = "each argument as <parameter=NAME>value</parameter> (strings as they are, anything else as JSON)";

/** Qwen3-Coder: its XML call inside `<tool_call>`; results as `<tool_response>`. */
const QWEN3_CODER: PromptFamily = {
  format: "qwen3-coder",
  instruction: `To call a tool, write <tool_call>, then <function=NAME> with ${XML_ARGS}, then </function></tool_call>; one block per call:`,
  formatCalls: (calls) => calls.map((c) => `<tool_call>\n${functionXml(c)}\n</tool_call>`).join("\n"),
  ...toolResponse,
};

/** Seed-OSS: the same XML inside `<seed:tool_call>`. */
const SEED_OSS: PromptFamily = {
  format: "seed-oss",
  instruction: `To call a tool, write ${SEED.open}, then <function=NAME> with ${XML_ARGS}, then </function>${SEED.close}; one block per call:`,
  formatCalls: (calls) => calls.map((c) => `${SEED.open}\n${functionXml(c, true)}\n${SEED.close}`).join("\n"),
  ...toolResponse,
};

/** Gemma 4 and FunctionGemma: `call:NAME{key:value}` between the family's call tokens, strings between its delimiter. */
function gemmaFamily(
  format: PromptFormat,
  t: { open: string; close: string; quote: string },
  result: { open: string; close: string },
): PromptFamily {
  return {
    format,
    instruction: `To call a tool, write ${t.open}call:NAME{key:value,...}${t.close}, with every string between ${t.quote} delimiters (key:${t.quote}text${t.quote}) and numbers, booleans, lists and objects as they are; one block per call:`,
    formatCalls: (calls) => calls.map((c) => `${t.open}call:${c.name}${gemmaValue(argumentsObject(c.arguments), t.quote)}${t.close}`).join(""),
    resultOpen: (r, i) => `${i > 0 ? "\n" : ""}${result.open}response:${r.name}{${r.isError ? "error" : "value"}:${t.quote}`,
    resultClose: () => `${t.quote}}${result.close}`,
    resultsAre: `${result.open} blocks`,
  };
}
const GEMMA4_FAMILY = gemmaFamily("gemma4", GEMMA4, { open: "<|tool_response>", close: "<tool_response|>" });
const FUNCTION_GEMMA_FAMILY = gemmaFamily("functiongemma", FUNCTION_GEMMA, { open: "<start_function_response>", close: "<end_function_response>" });

/** `<P invoke name="N"><P parameter name="K">V</P parameter></P invoke>` under a family's prefix. */
const invokeXml = (c: ToolCall, prefix: string, typed: boolean): string =>
  `<${prefix}invoke name="${attr(c.name)}">\n${argumentEntries(c)
    .map(([k, v, isString]) => `<${prefix}parameter name="${attr(k)}"${typed ? ` string="${isString}"` : ""}>${v}</${prefix}parameter>\n`)
    .join("")}</${prefix}invoke>`;

const DSML_MARK = "｜DSML｜";

/**
 * DeepSeek V3.2, V4 and V4.1: DSML invokes in a block (V4.1 spaces every tag: `<｜DSML｜ invoke`).
 * V3.2's template sends results in `<function_results>`; V4's encoding merges them into the
 * user turn as `<tool_result>` blocks a blank line apart, and V4.1 keeps that.
 */
function dsmlFamily(format: PromptFormat, open: string, close: string, prefix: string): PromptFamily {
  const results =
    format === "deepseek-v32"
      ? {
          resultOpen: (r: ToolResultText, i: number) => `${i > 0 ? "\n" : ""}<function_results>\n<result name="${attr(r.name)}"${r.isError ? ' error="true"' : ""}>`,
          resultClose: () => "</result>\n</function_results>",
          resultsAre: "<function_results> blocks",
        }
      : {
          resultOpen: (r: ToolResultText, i: number) => `${i > 0 ? "\n\n" : ""}<tool_result>${r.isError ? "Error: " : ""}`,
          resultClose: () => "</tool_result>",
          resultsAre: "<tool_result> blocks, in the order of the calls",
        };
  return {
    format,
    instruction: `To call tools, write ${open}, then for each call <${prefix}invoke name="NAME"> with each argument as <${prefix}parameter name="KEY" string="true">text</${prefix}parameter> (string="false" and JSON for anything but a string) and </${prefix}invoke>; end with ${close}:`,
    formatCalls: (calls) => `${open}\n${calls.map((c) => `${invokeXml(c, prefix, true)}\n`).join("")}${close}`,
    ...results,
  };
}

/** MiniMax M2: invokes inside `<minimax:tool_call>`; results in `<response>`. */
const MINIMAX_FAMILY: PromptFamily = {
  format: "minimax",
  instruction: `To call tools, write ${MINIMAX.open}, then for each call <invoke name="NAME"> with each argument as <parameter name="KEY">value</parameter> and </invoke>; end with ${MINIMAX.close}:`,
  formatCalls: (calls) => `${MINIMAX.open}\n${calls.map((c) => `${invokeXml(c, "", false)}\n`).join("")}${MINIMAX.close}`,
  resultOpen: (r, i) => `${i > 0 ? "\n" : ""}<response name="${attr(r.name)}"${r.isError ? ' error="true"' : ""}>`,
  resultClose: () => "</response>",
  resultsAre: "<response> blocks",
};

/** MiniMax M3's `to_xml`: an object as elements named for its keys, a list as `<item>`s, null left out, anything else as text. */
function m3Xml(value: unknown): string {
  if (Array.isArray(value)) return value.map((v) => `${MINIMAX_NS}<item>${m3Xml(v)}${MINIMAX_NS}</item>`).join("");
  if (typeof value === "object" && value !== null) {
    return Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => `${MINIMAX_NS}<${k}>${m3Xml(v)}${MINIMAX_NS}</${k}>`)
      .join("");
  }
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** MiniMax M3: invokes whose parameters are elements, every tag after its namespace token, in `<tool_call>`; results in `<response>`. */
const MINIMAX_M3_FAMILY: PromptFamily = {
  format: "minimax-m3",
  instruction: `To call tools, write ${MINIMAX_NS}<tool_call>, then for each call ${MINIMAX_NS}<invoke name="NAME"> with each argument as an element named for it (${MINIMAX_NS}<KEY>value${MINIMAX_NS}</KEY>; objects as nested elements, lists as ${MINIMAX_NS}<item> elements) and ${MINIMAX_NS}</invoke>; end with ${MINIMAX_NS}</tool_call>:`,
  formatCalls: (calls) =>
    `${MINIMAX_NS}<tool_call>\n${calls.map((c) => `${MINIMAX_NS}<invoke name="${attr(c.name)}">${m3Xml(argumentsObject(c.arguments))}${MINIMAX_NS}</invoke>\n`).join("")}${MINIMAX_NS}</tool_call>`,
  resultOpen: (r, i) => `${i > 0 ? "\n" : ""}<response>${r.isError ? "Error: " : ""}`,
  resultClose: () => "</response>",
  resultsAre: "<response> blocks, in the order of the calls",
};

/** One call in Kimi K3's tools channel: each argument with its XTML type, strings as they are. */
const xtmlCall = (c: ToolCall, i: number): string =>
  `<|open|>call tool="${attr(c.name)}" index="${i + 1}"<|sep|>${Object.entries(argumentsObject(c.arguments))
    .map(([k, v]) => `<|open|>argument key="${attr(k)}" type="${xtmlType(v)}"<|sep|>${typeof v === "string" ? v : JSON.stringify(v)}<|close|>argument<|sep|>`)
    .join("")}<|close|>call<|sep|>`;

/** Kimi K3: XTML calls in the tools channel; each result is a tool message naming the call's tool and index. */
const KIMI_K3: PromptFamily = {
  format: "kimi-k3",
  instruction: `To call tools, write ${XTML.open}, then for each call <|open|>call tool="NAME" index="N"<|sep|> (N counting from 1), each argument as <|open|>argument key="KEY" type="string|number|boolean|null|object|array"<|sep|>value<|close|>argument<|sep|> (strings as they are, anything else as JSON), and <|close|>call<|sep|>; end with ${XTML.close}:`,
  formatCalls: (calls) => `${XTML.open}${calls.map(xtmlCall).join("")}${XTML.close}`,
  resultOpen: (r, i) => `<|open|>message role="tool" tool="${attr(r.name)}" index="${i + 1}"<|sep|>${r.isError ? "Error: " : ""}`,
  resultClose: () => `${XTML.messageClose}${XTML.endOfMessage}`,
  resultsAre: 'role="tool" messages naming the call\'s tool and index',
};

/** StepFun step3: steptml invokes between its call tokens. */
const STEP3_FAMILY: PromptFamily = {
  format: "step3",
  instruction: `To call tools, write ${STEP3.open}, then for each call ${STEP3.callBegin}function${STEP3.sep}<steptml:invoke name="NAME"> with each argument as <steptml:parameter name="KEY">value</steptml:parameter>, </steptml:invoke> and ${STEP3.callEnd}; end with ${STEP3.close}:`,
  formatCalls: (calls) =>
    `${STEP3.open}\n${calls.map((c) => `${STEP3.callBegin}function${STEP3.sep}${invokeXml(c, "steptml:", false)}${STEP3.callEnd}\n`).join("")}${STEP3.close}`,
  ...toolResponse,
};

/** Hunyuan A13B: a JSON list of calls in `<tool_calls>`. */
const HUNYUAN: PromptFamily = {
  format: "hunyuan",
  instruction: "To call tools, write <tool_calls>, a JSON list of calls, and </tool_calls>:",
  formatCalls: (calls) => `<tool_calls>[${calls.map(callJson).join(", ")}]</tool_calls>`,
  ...toolResponse,
};

/** `name(key=value, ...)` with Python literals, as LFM2 and OLMo 3 write calls. */
const pythonCall = (c: ToolCall): string =>
  `${c.name}(${Object.entries(argumentsObject(c.arguments)).map(([k, v]) => `${k}=${pythonValue(v)}`).join(", ")})`;

/** LFM2: a Python list of calls between its call tokens; results between its response tokens. */
const LFM2: PromptFamily = {
  format: "lfm2",
  instruction: "To call tools, write <|tool_call_start|>, a Python list of calls with keyword arguments ([name(key=\"value\")]), and <|tool_call_end|>:",
  formatCalls: (calls) => `<|tool_call_start|>[${calls.map(pythonCall).join(", ")}]<|tool_call_end|>`,
  resultOpen: (r, i) => `${i > 0 ? "\n" : ""}<|tool_response_start|>${r.name}${errorMark(r)}: `,
  resultClose: () => "<|tool_response_end|>",
  resultsAre: "<|tool_response_start|> blocks",
};

/** OLMo 3: Python calls, one per line, in `<function_calls>`. */
const OLMO3_FAMILY: PromptFamily = {
  format: "olmo3",
  instruction: `To call tools, write ${OLMO3.open}, one Python call with keyword arguments per line (name(key="value")), and ${OLMO3.close}:`,
  formatCalls: (calls) => `${OLMO3.open}${calls.map(pythonCall).join("\n")}${OLMO3.close}`,
  ...toolResponse,
};

/** xLAM: nothing but a JSON list of calls. */
const XLAM: PromptFamily = {
  format: "xlam",
  instruction: 'To call tools, reply with only a JSON list of calls, [{"name": function name, "arguments": dictionary of argument name and its value}]:',
  formatCalls: (calls) => `[${calls.map(callJson).join(", ")}]`,
  ...toolResponse,
};

const FAMILIES: Record<PromptFormat, PromptFamily> = {
  hermes: HERMES,
  llama: LLAMA,
  mistral: MISTRAL,
  "mistral-v11": MISTRAL_V11,
  deepseek: DEEPSEEK,
  "deepseek-v31": DEEPSEEK_V31,
  glm: GLM,
  kimi: KIMI,
  "gpt-oss": GPT_OSS,
  granite: GRANITE,
  "qwen3-coder": QWEN3_CODER,
  gemma4: GEMMA4_FAMILY,
  functiongemma: FUNCTION_GEMMA_FAMILY,
  "deepseek-v32": dsmlFamily("deepseek-v32", DSML.open32, DSML.close32, DSML_MARK),
  "deepseek-v4": dsmlFamily("deepseek-v4", DSML.open4, DSML.close4, DSML_MARK),
  "deepseek-v41": dsmlFamily("deepseek-v41", DSML.open41, DSML.close41, `${DSML_MARK} `),
  "kimi-k3": KIMI_K3,
  minimax: MINIMAX_FAMILY,
  "minimax-m3": MINIMAX_M3_FAMILY,
  "seed-oss": SEED_OSS,
  step3: STEP3_FAMILY,
  hunyuan: HUNYUAN,
  lfm2: LFM2,
  olmo3: OLMO3_FAMILY,
  xlam: XLAM,
};

/** DeepSeek V4.1, V4 and V3.2 write DSML (V3.2-Exp still V3.1's tokens), V3.1 its own tokens, V3/R1 the fenced form. */
function deepseekFormat(id: string): PromptFormat {
  if (/v4\.[1-9]/.test(id)) return "deepseek-v41";
  if (/v4/.test(id)) return "deepseek-v4";
  if (/v3\.2(?!-?exp)/.test(id)) return "deepseek-v32";
  if (/v3\.[1-9]|v3-?[1-9]\b/.test(id)) return "deepseek-v31";
  return /r1|v3|v2\.5/.test(id) ? "deepseek" : "hermes";
}

/** Which family a model name says (`meta-llama/Llama-3.3-70B-Instruct`, `deepseek-ai/DeepSeek-V3.1`, `gpt-oss:20b`, ...). */
export function detectPromptFormat(modelId: string): PromptFormat {
  const id = modelId.toLowerCase();
  if (/gpt-oss/.test(id)) return "gpt-oss";
  if (/kimi-?k[3-9]/.test(id)) return "kimi-k3";
  if (/kimi|moonshot/.test(id)) return "kimi";
  if (/glm-?4\.[5-9]|glm-?[5-9]/.test(id)) return "glm";
  if (/deepseek/.test(id)) return deepseekFormat(id);
  if (/functiongemma/.test(id)) return "functiongemma";
  if (/gemma-?4/.test(id)) return "gemma4";
  if (/minimax-?m[3-9]/.test(id)) return "minimax-m3";
  if (/minimax-?m2/.test(id)) return "minimax";
  if (/seed-oss/.test(id)) return "seed-oss";
  if (/step-?3/.test(id)) return "step3";
  if (/hunyuan/.test(id)) return "hunyuan";
  if (/lfm-?2/.test(id)) return "lfm2";
  if (/olmo-?3/.test(id)) return "olmo3";
  if (/xlam/.test(id)) return "xlam";
  if (/qwen3-?coder/.test(id)) return "qwen3-coder";
  if (/llama/.test(id) && !/hermes|qwen|mistral/.test(id)) return /llama-?[34]|llama[34]/.test(id) ? "llama" : "hermes";
  if (/granite/.test(id)) return /granite-?3/.test(id) ? "granite" : "hermes";
  if (/magistral|devstral|ministral|mistral-(small|medium|large)-(3\.[1-9]|2[5-9]|3\b)/.test(id)) return "mistral-v11";
  if (/mistral|mixtral|nemo/.test(id)) return "mistral";
  return "hermes";
}

/** The family to prompt in: the configured format, or the one the model's name says. */
export function promptFamily(modelId: string, format: PromptFormat | "auto" = "auto"): PromptFamily {
  return FAMILIES[format === "auto" ? detectPromptFormat(modelId) : format];
}
