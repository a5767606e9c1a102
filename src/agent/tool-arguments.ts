import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { locateJsonSyntaxError } from "../config/json-syntax.js";
import type { JsonSchema, ResponseFormat, ToolCall } from "../llm/types.js";

/**
 * Checks the arguments a model wrote for a tool, in every tool mode (native calls and calls
 * parsed from text alike). Every problem is worded for the model, so it can correct the
 * call on its next try.
 */

export type ArgumentCheck =
  | { ok: true; arguments: Record<string, unknown> }
  /** `problems`: for invalid arguments, one phrase per problem ("missing required argument \"a\""). */
  | { ok: false; outcome: "invalid-json" | "invalid-arguments"; message: string; arguments?: Record<string, unknown>; problems?: string[] };

/** A call as the model wrote it, with its arguments parsed once for every reader (repeat guard, runner). */
export interface ParsedToolCall {
  call: ToolCall;
  args: ArgumentCheck;
}

/** Parses the raw argument text. An empty text means "no arguments" (some servers send "" for parameterless tools). */
export function parseToolArguments(raw: string): ArgumentCheck {
  const text = raw.trim();
  if (text === "") return { ok: true, arguments: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, outcome: "invalid-json", message: describeJsonError(text) };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return {
      ok: false,
      outcome: "invalid-arguments",
      message: `The arguments must be a JSON object of named arguments, but got ${value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`}.`,
    };
  }
  return { ok: true, arguments: value as Record<string, unknown> };
}

function describeJsonError(text: string): string {
  const { offset: at, reason } = locateJsonSyntaxError(text);
  const start = Math.max(0, at - 20);
  const near = `${start > 0 ? "…" : ""}${text.slice(start, at)}⟨here⟩${text.slice(at, at + 20)}${at + 20 < text.length ? "…" : ""}`;
  return `The arguments are not valid JSON: ${reason} at character ${at}: ${near}. Send the arguments again as one complete JSON object.`;
}

// One validator per schema object: the hub hands out the same schema objects until a server's tools change.
const validators = new WeakMap<JsonSchema, ValidateFunction | null>();
let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

function validatorFor(schema: JsonSchema): ValidateFunction | null {
  let validate = validators.get(schema);
  if (validate !== undefined) return validate;
  const { $schema, ...rest } = schema;
  const isDraft07 = typeof $schema === "string" && /draft-0[4-7]/.test($schema);
  const ajv = isDraft07
    ? (draft07 ??= new Ajv({ allErrors: true, strict: false, validateFormats: false }))
    : (draft2020 ??= new Ajv2020({ allErrors: true, strict: false, validateFormats: false }));
  try {
    validate = ajv.compile(rest);
  } catch {
    // A schema Ajv cannot compile is the server's problem; the server still validates the call itself.
    validate = null;
  }
  validators.set(schema, validate);
  return validate;
}

/** Validates parsed arguments against a tool's inputSchema: one sentence per problem, naming the argument. */
export function validateToolArguments(toolName: string, schema: JsonSchema, args: Record<string, unknown>): ArgumentCheck {
  const validate = validatorFor(schema);
  if (validate === null || validate(args)) return { ok: true, arguments: args };
  const problems = [...new Set((validate.errors ?? []).map(describeProblem))];
  return {
    ok: false,
    outcome: "invalid-arguments",
    arguments: args,
    problems,
    message: `The arguments for "${toolName}" do not match its input schema:\n${problems.map((p) => `- ${p}`).join("\n")}\nCall "${toolName}" again with corrected arguments.`,
  };
}

function describeProblem(error: ErrorObject): string {
  const where = argumentName(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `missing required argument "${joinPath(where, String(params.missingProperty))}"`;
    case "additionalProperties":
      return `unknown argument "${joinPath(where, String(params.additionalProperty))}"`;
    case "enum":
      return `argument "${where}" must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `argument "${where}" must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return where === "" ? `the arguments ${error.message ?? "are invalid"}` : `argument "${where}" ${error.message ?? "is invalid"}`;
  }
}

/** `/location/city` → `location.city`, `/items/0` → `items[0]` */
function argumentName(instancePath: string): string {
  if (instancePath === "") return "";
  return instancePath
    .slice(1)
    .split("/")
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path === "" ? segment : `${path}.${segment}`), "");
}

function joinPath(parent: string, child: string): string {
  return parent === "" ? child : `${parent}.${child}`;
}

/**
 * Whether an answer's text is what a response format asks for: a JSON object, matching the
 * schema when there is one. A provider's own constraint cannot be checked here, so never matches.
 */
export function matchesFormat(format: ResponseFormat, text: string): boolean {
  if (format.type !== "json") return false;
  const parsed = parseToolArguments(text);
  if (!parsed.ok || text.trim() === "") return false;
  const validate = format.schema ? validatorFor(format.schema) : null;
  return validate === null || validate(parsed.arguments) === true;
}
