/**
 * The prompt side of prompt-based tool calling: a compact description of the tools with the
 * call format of the model's family (Hermes/Qwen `<tool_call>` unless the family says
 * otherwise), and the conversation history rendered back in that format for a model that
 * gets no `tools` field: earlier calls as the model writes them, results as the family's
 * template sends them back.
 */
import type { ContentPart, JsonSchema, Message, ToolCall, ToolChoice, ToolDefinition } from "../llm/types.js";
import { promptFamily, type PromptFamily } from "./prompt-families.js";

export interface ToolPromptOptions {
  /** The user's own system prompt; the tool section follows it. */
  systemPrompt?: string;
  toolChoice?: ToolChoice;
  /** The call format to ask for; Hermes/Qwen's by default. */
  family?: PromptFamily;
}

const HERMES = promptFamily("", "hermes");

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
  const family = options.family ?? HERMES;
  const example = family.formatCalls([{ id: "", name: "<tool-name>", arguments: '{"<parameter>": "<value>"}' }]).replace(/"<parameter>":\s*"<value>"/, '"<parameter>": <value>');
  const section = [
    "# Tools",
    "",
    "You may call one or more tools to help with the user's request. Each tool is listed as name: description, then its parameters (? marks an optional one):",
    "<tools>",
    ...tools.map(describeTool),
    "</tools>",
    "",
    family.instruction,
    example,
    `Results come back in ${family.resultsAre}. Answer directly when no tool is needed.${choiceLine(options.toolChoice)}`,
  ].join("\n");
  const user = options.systemPrompt?.trim();
  return user ? `${user}\n\n${section}` : section;
}

/** An earlier assistant call as a Hermes/Qwen model would have written it. */
export function formatToolCall(call: ToolCall): string {
  return HERMES.formatCalls([call]);
}

type ToolMessage = Extract<Message, { role: "tool" }>;

/** Tool results as one user turn, each wrapped as the family's template sends results back. */
function toolResponses(results: readonly ToolMessage[], family: PromptFamily): string | ContentPart[] {
  const parts: ContentPart[] = [];
  const text = (t: string): void => {
    const last = parts[parts.length - 1];
    if (last?.type === "text") last.text += t;
    else parts.push({ type: "text", text: t });
  };
  results.forEach((r, i) => {
    const meta = { name: r.name, id: r.toolCallId, isError: r.isError === true };
    text(family.resultOpen(meta, i));
    if (typeof r.content === "string") text(r.content);
    else for (const part of r.content) part.type === "text" ? text(part.text) : parts.push(part);
    text(family.resultClose(meta));
  });
  if (family.resultsEnd !== undefined && results.length > 0) text(family.resultsEnd);
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
  family: PromptFamily = HERMES,
): Message[] {
  const out: Message[] = [];
  const system = messages.find((m) => m.role === "system");
  if (tools.length > 0) {
    out.push({ role: "system", content: buildToolPrompt(tools, { systemPrompt: system?.content, toolChoice, family }) });
  } else if (system !== undefined) out.push(system);
  let pending: ToolMessage[] = [];
  const flush = (): void => {
    if (pending.length > 0) out.push({ role: "user", content: toolResponses(pending, family) });
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
      const calls = family.formatCalls(m.toolCalls);
      out.push({ role: "assistant", content: m.content.trim() === "" ? calls : `${m.content}\n${calls}` });
    } else if (m.role === "assistant") out.push({ role: "assistant", content: m.content });
    else out.push(m);
  }
  flush();
  return out;
}
