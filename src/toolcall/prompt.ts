/**
 * The prompt side of prompt-based tool calling: a compact description of the tools with the
 * Hermes/Qwen `<tool_call>` format (what Qwen, Hermes and many other open models are trained
 * on), and the conversation history rendered back in that format for a model that gets no
 * `tools` field: earlier calls as `<tool_call>` text, results as `<tool_response>` blocks.
 */
import type { ContentPart, JsonSchema, Message, ToolCall, ToolChoice, ToolDefinition } from "../llm/types.js";

export interface ToolPromptOptions {
  /** The user's own system prompt; the tool section follows it. */
  systemPrompt?: string;
  toolChoice?: ToolChoice;
}

type Schema = Record<string, unknown>;
const isSchema = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** A JSON-schema type in TypeScript-like shorthand: `string`, `"a"|"b"`, `number[]`, `{x: number, y?: string}`. */
function typeText(schema: unknown): string {
  if (!isSchema(schema)) return "any";
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join("|");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return union.map(typeText).join("|");
  const type = schema.type;
  if (Array.isArray(type)) return type.map((t) => typeText({ ...schema, type: t })).join("|");
  if (type === "array") {
    const item = typeText(schema.items);
    return item.includes("|") ? `(${item})[]` : `${item}[]`;
  }
  if (type === "object" || isSchema(schema.properties)) {
    if (!isSchema(schema.properties) || Object.keys(schema.properties).length === 0) return "object";
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const fields = Object.entries(schema.properties).map(
      ([key, sub]) => `${key}${required.has(key) ? "" : "?"}: ${typeText(sub)}`,
    );
    return `{${fields.join(", ")}}`;
  }
  return typeof type === "string" ? type : "any";
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

function describeTool(tool: ToolDefinition): string {
  const lines = [tool.description ? `${tool.name}: ${oneLine(tool.description)}` : tool.name];
  const schema: JsonSchema = tool.parameters;
  const props = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const [key, sub] of Object.entries(props)) {
    let line = `  ${key}${required.has(key) ? "" : "?"}: ${typeText(sub)}`;
    if (isSchema(sub) && sub.default !== undefined) line += ` = ${JSON.stringify(sub.default)}`;
    if (isSchema(sub) && typeof sub.description === "string" && sub.description.trim() !== "") {
      line += ` - ${oneLine(sub.description)}`;
    }
    lines.push(line);
  }
  return lines.join("\n");
}

function choiceLine(choice: ToolChoice | undefined): string {
  if (choice === "required") return "\nYou must call at least one tool now.";
  if (typeof choice === "object") return `\nYou must call the tool ${choice.name} now.`;
  return "";
}

/** The system prompt for a model that is told about its tools in text. */
export function buildToolPrompt(tools: readonly ToolDefinition[], options: ToolPromptOptions = {}): string {
  const section = [
    "# Tools",
    "",
    "You may call one or more tools to help with the user's request. Each tool is listed as name: description, then its parameters (? marks an optional one):",
    "<tools>",
    ...tools.map(describeTool),
    "</tools>",
    "",
    "To call a tool, reply with a JSON object holding its name and arguments inside <tool_call></tool_call> tags, one block per call:",
    "<tool_call>",
    '{"name": "<tool-name>", "arguments": {"<parameter>": <value>}}',
    "</tool_call>",
    `Results come back in <tool_response> blocks. Answer directly when no tool is needed.${choiceLine(options.toolChoice)}`,
  ].join("\n");
  const user = options.systemPrompt?.trim();
  return user ? `${user}\n\n${section}` : section;
}

function argumentsJson(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw));
  } catch {
    // Keep what the model wrote, as a string, so the history stays valid JSON.
    return JSON.stringify(raw);
  }
}

/** An earlier assistant call as the model would have written it. */
export function formatToolCall(call: ToolCall): string {
  return `<tool_call>\n{"name": ${JSON.stringify(call.name)}, "arguments": ${argumentsJson(call.arguments)}}\n</tool_call>`;
}

const attr = (value: string): string => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;");

type ToolMessage = Extract<Message, { role: "tool" }>;

/** Tool results as one user turn of `<tool_response>` blocks, each naming its call. */
function toolResponses(results: readonly ToolMessage[]): string | ContentPart[] {
  const parts: ContentPart[] = [];
  const text = (t: string): void => {
    const last = parts[parts.length - 1];
    if (last?.type === "text") last.text += t;
    else parts.push({ type: "text", text: t });
  };
  results.forEach((r, i) => {
    const error = r.isError === true ? ' error="true"' : "";
    text(`${i > 0 ? "\n" : ""}<tool_response name="${attr(r.name)}" id="${attr(r.toolCallId)}"${error}>\n`);
    if (typeof r.content === "string") text(r.content);
    else for (const part of r.content) part.type === "text" ? text(part.text) : parts.push(part);
    text("\n</tool_response>");
  });
  const only = parts[0];
  return parts.length === 1 && only?.type === "text" ? only.text : parts;
}

/**
 * The conversation for a model without a `tools` field: the tool prompt merged into the
 * system prompt, earlier calls as text, and results as user turns.
 */
export function renderPromptMessages(
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  toolChoice?: ToolChoice,
): Message[] {
  const out: Message[] = [];
  const system = messages.find((m) => m.role === "system");
  if (tools.length > 0) {
    out.push({ role: "system", content: buildToolPrompt(tools, { systemPrompt: system?.content, toolChoice }) });
  } else if (system !== undefined) out.push(system);
  let pending: ToolMessage[] = [];
  const flush = (): void => {
    if (pending.length > 0) out.push({ role: "user", content: toolResponses(pending) });
    pending = [];
  };
  for (const m of messages) {
    if (m.role === "tool") {
      pending.push(m);
      continue;
    }
    flush();
    if (m.role === "system") continue;
    if (m.role === "assistant" && m.toolCalls !== undefined && m.toolCalls.length > 0) {
      const calls = m.toolCalls.map(formatToolCall).join("\n");
      out.push({ role: "assistant", content: m.content.trim() === "" ? calls : `${m.content}\n${calls}` });
    } else if (m.role === "assistant") out.push({ role: "assistant", content: m.content });
    else out.push(m);
  }
  flush();
  return out;
}
