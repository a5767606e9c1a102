/**
 * TEST INFRASTRUCTURE ONLY: a scripted stand-in for the Gemini API's
 * `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`, in its real shapes:
 * `data: <GenerateContentResponse>\r\n\r\n` events, text and thought (`thought: true`)
 * parts, whole `functionCall` parts (with `thoughtSignature` when scripted), the last
 * chunk carrying `finishReason` and the full `usageMetadata`, errors as
 * `{"error": {"code", "message", "status"}}`.
 *
 * Like the real API it refuses (400 INVALID_ARGUMENT, before taking a reply) function
 * declarations whose `parameters` leave Gemini's OpenAPI subset; `geminiSchemaProblems`
 * is that check, exported for the schema tests. For a `gemini-3…` model, as Gemini 3 does, it
 * refuses a conversation whose current turn (since the last user text) has a step whose first
 * `functionCall` lost its `thoughtSignature`.
 *
 *   const server = await startGeminiServer({ replies: [{ functionCalls: [{ name: "add", args: { a: 1 } }] }] });
 *   new GeminiModel({ baseURL: server.url, apiKey: "test", model: "gemini-2.5-flash" });
 */
import type { ServerResponse } from "node:http";
import { listenScripted, type RecordedRequest, type ScriptedServer } from "./scripted-server.js";

export interface GeminiReply {
  kind?: "reply";
  thoughts?: string;
  text?: string;
  functionCalls?: Array<{ name: string; args: Record<string, unknown>; id?: string; thoughtSignature?: string }>;
  finishReason?: string;
  usage?: { promptTokenCount: number; candidatesTokenCount: number; thoughtsTokenCount?: number };
  /** Stop writing after this many chunks and keep the connection open. */
  stallAfterChunks?: number;
}
export interface GeminiErrorReply {
  kind: "error";
  status: number;
  message: string;
  statusText?: string;
}
export type GeminiScriptReply = GeminiReply | GeminiErrorReply | { kind: "hang" };

/** `url` is the base URL to give the SDK (it adds `/v1beta/models/...`); a request's `path` keeps its query (`?alt=sse`). */
export type GeminiServer = ScriptedServer;

export async function startGeminiServer(options: { replies: GeminiScriptReply[] }): Promise<GeminiServer> {
  const script = [...options.replies];

  async function handle({ method, path, body }: RecordedRequest, res: ServerResponse): Promise<void> {
    const match = /^\/v1beta\/models\/([^:/]+):streamGenerateContent\?alt=sse$/.exec(path);
    if (method !== "POST" || !match) return sendError(res, 404, "Not found.", "NOT_FOUND");

    const problems = (body?.tools ?? []).flatMap((tool: any, t: number) =>
      (tool.functionDeclarations ?? []).flatMap((fd: any, f: number) => {
        const where = `tools[${t}].function_declarations[${f}]`;
        if (fd.parameters && fd.parametersJsonSchema) return [`${where}: parameters and parameters_json_schema are mutually exclusive`];
        if (fd.parameters) return geminiSchemaProblems(fd.parameters, `${where}.parameters`);
        if (fd.parametersJsonSchema && JSON.stringify(fd.parametersJsonSchema).includes('"$schema"')) {
          return [`Invalid JSON payload received. Unknown name "$schema" at '${where}.parameters_json_schema'`];
        }
        return [];
      }),
    );
    if (problems.length > 0) return sendError(res, 400, problems.map((p: string) => `* GenerateContentRequest.${p}`).join("\n"), "INVALID_ARGUMENT");
    const unsigned = match[1]?.startsWith("gemini-3") ? unsignedCall(body?.contents ?? []) : undefined;
    if (unsigned !== undefined) return sendError(res, 400, unsigned, "INVALID_ARGUMENT");

    const reply = script.shift();
    if (!reply) return sendError(res, 500, "scripted Gemini server: no reply left in the script", "INTERNAL");
    if (reply.kind === "hang") return;
    if (reply.kind === "error") return sendError(res, reply.status, reply.message, reply.statusText ?? "INVALID_ARGUMENT");

    const model = match[1] ?? "gemini";
    const usage = reply.usage ?? { promptTokenCount: 12, candidatesTokenCount: 5 };
    const responseId = `resp-${Date.now().toString(36)}`;
    const chunk = (parts: unknown[], last = false) => ({
      candidates: [{ content: { parts, role: "model" }, ...(last ? { finishReason: reply.finishReason ?? "STOP" } : {}), index: 0 }],
      usageMetadata: last
        ? { ...usage, totalTokenCount: usage.promptTokenCount + usage.candidatesTokenCount + (usage.thoughtsTokenCount ?? 0) }
        : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount },
      modelVersion: model,
      responseId,
    });
    const chunks: unknown[] = [];
    for (const piece of pieces(reply.thoughts ?? "")) chunks.push(chunk([{ text: piece, thought: true }]));
    for (const piece of pieces(reply.text ?? "")) chunks.push(chunk([{ text: piece }]));
    const calls = (reply.functionCalls ?? []).map((fc) => ({
      functionCall: { name: fc.name, args: fc.args, ...(fc.id ? { id: fc.id } : {}) },
      ...(fc.thoughtSignature ? { thoughtSignature: fc.thoughtSignature } : {}),
    }));
    // Function calls come whole, in the last chunk with the finish reason.
    chunks.push(chunk(calls, true));

    res.writeHead(200, { "content-type": "text/event-stream", "x-content-type-options": "nosniff" });
    for (const [i, c] of chunks.entries()) {
      if (reply.stallAfterChunks !== undefined && i >= reply.stallAfterChunks) return;
      res.write(`data: ${JSON.stringify(c)}\r\n\r\n`);
    }
    res.end();
  }

  return listenScripted(handle, { keepQuery: true });
}

const SCHEMA_FIELDS = new Set([
  "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
  "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
  "default", "items", "minimum", "maximum",
]);
const TYPES = new Set(["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"]);
const FORMATS: Record<string, string[]> = { STRING: ["enum", "date-time"], NUMBER: ["float", "double"], INTEGER: ["int32", "int64"] };

/**
 * What the Gemini API refuses in a `parameters` schema, worded like its 400 messages
 * (gathered from its answers to real clients): unknown fields, an OBJECT without
 * properties, properties on other types, an ARRAY without items, enums off STRING,
 * `required` naming unknown properties, formats it does not know for the type.
 */
export function geminiSchemaProblems(schema: any, path: string): string[] {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return [`${path}: not a schema object`];
  const problems: string[] = [];
  for (const key of Object.keys(schema)) {
    if (!SCHEMA_FIELDS.has(key)) problems.push(`Invalid JSON payload received. Unknown name "${key}" at '${path}': Cannot find field.`);
  }
  const { type } = schema;
  if (type !== undefined && !TYPES.has(type)) problems.push(`${path}.type: invalid value "${type}"`);
  if (type === undefined && schema.anyOf === undefined) problems.push(`${path}.type: must be specified`);
  if (type !== undefined && schema.anyOf !== undefined) problems.push(`${path}: type and anyOf cannot both be set`);
  if (type === "OBJECT" && (!schema.properties || Object.keys(schema.properties).length === 0)) {
    problems.push(`${path}.properties: should be non-empty for OBJECT type`);
  }
  if (schema.properties !== undefined && type !== "OBJECT") problems.push(`${path}.properties: only allowed for OBJECT type`);
  if (type === "ARRAY" && !schema.items) problems.push(`${path}.items: missing field.`);
  if (schema.enum !== undefined && (type !== "STRING" || !schema.enum.every((v: unknown) => typeof v === "string"))) {
    problems.push(`${path}.enum: only allowed for STRING type`);
  }
  for (const name of schema.required ?? []) {
    if (!schema.properties || !(name in schema.properties)) problems.push(`${path}.required[${name}]: property is not defined`);
  }
  if (schema.format !== undefined && !(FORMATS[type] ?? []).includes(schema.format)) {
    problems.push(`${path}.format: only ${(FORMATS[type] ?? []).join(", ") || "no"} formats are supported for ${type} type`);
  }
  for (const [name, prop] of Object.entries(schema.properties ?? {})) problems.push(...geminiSchemaProblems(prop, `${path}.properties[${name}].value`));
  if (schema.items) problems.push(...geminiSchemaProblems(schema.items, `${path}.items`));
  for (const [i, branch] of (schema.anyOf ?? []).entries()) problems.push(...geminiSchemaProblems(branch, `${path}.any_of[${i}]`));
  return problems;
}

/** Gemini 3's refusal of a current turn whose step lost the thought signature on its first call, in its words. */
function unsignedCall(contents: Array<{ role?: string; parts?: Array<Record<string, any>> }>): string | undefined {
  const start = contents.findLastIndex((content) => content.role === "user" && (content.parts ?? []).some((part) => typeof part.text === "string"));
  for (const [at, content] of contents.entries()) {
    if (at <= start || content.role !== "model") continue;
    const first = (content.parts ?? []).findIndex((part) => part.functionCall);
    const part = content.parts?.[first];
    if (part && !part.thoughtSignature) {
      return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${part.functionCall.name}\` , position ${at + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
    }
  }
  return undefined;
}

function pieces(text: string): string[] {
  return text.match(/[\s\S]{1,12}/g) ?? [];
}

function sendError(res: ServerResponse, code: number, message: string, status: string): void {
  res.writeHead(code, { "content-type": "application/json; charset=UTF-8" });
  res.end(JSON.stringify({ error: { code, message, status } }));
}
