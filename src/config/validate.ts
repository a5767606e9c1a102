import { z } from "zod";
import { ConfigError, type JsonPathSegment } from "./errors.js";
import { isPlainObject } from "./expand-env.js";
import { ConfigSchema, type Config } from "./schema.js";
import { didYouMean } from "./unknown-keys.js";

type Issue = z.core.$ZodIssue;

/** Validates parsed JSON against the schema; the first problem becomes one ConfigError. */
export function validateConfig(data: unknown, file?: string): Config {
  const result = ConfigSchema.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new ConfigError("invalid configuration", { file });
  const { path, reason } = describeIssue(issue, [], data);
  throw new ConfigError(reason, { file, path });
}

function describeIssue(issue: Issue, base: readonly JsonPathSegment[], root: unknown): { path: JsonPathSegment[]; reason: string } {
  const path = [...base, ...(issue.path as JsonPathSegment[])];
  const value = valueAt(root, path);
  switch (issue.code) {
    case "invalid_union": {
      if (path.length === 2 && path[0] === "mcpServers") {
        // A server entry is stdio | remote: explain the branch the entry was meant to be,
        // judged by the key it has, instead of both failures.
        const entry = isPlainObject(value) ? value : undefined;
        const branch = entry && "command" in entry ? 0 : entry && "url" in entry ? 1 : -1;
        const inner = branch >= 0 ? issue.errors[branch]?.[0] : undefined;
        if (inner) return describeIssue(inner, path, root);
        if (!entry) return { path, reason: `expected an object, got ${kindOf(value)}` };
        return { path, reason: 'needs "command" (a server to start) or "url" (a remote server)' };
      }
      // Any other union (llm.toolChoice: a name or {name}): the branch that got inside the
      // value, else the one of the value's own type.
      const firsts = issue.errors.map((errors) => errors[0]).filter((inner): inner is Issue => inner !== undefined);
      const inner =
        firsts.find((i) => i.path.length > 0) ?? firsts.find((i) => !(i.code === "invalid_type" && i.path.length === 0)) ?? firsts[0];
      if (inner) return describeIssue(inner, path, root);
      return { path, reason: issue.message };
    }
    case "invalid_type": {
      if (value === undefined) return { path, reason: `missing (expected ${article(issue.expected)})` };
      if (path.length === 0) return { path, reason: `expected a JSON object at the top level, got ${kindOf(value)}` };
      return { path, reason: `expected ${article(issue.expected)}, got ${kindOf(value)}` };
    }
    case "invalid_format":
      // A server's url may be a WebSocket's too; every other URL in the file is an HTTP one.
      if (issue.format === "url") return { path, reason: `not a valid ${path[0] === "mcpServers" ? "http(s) or ws(s)" : "http(s)"} URL: ${JSON.stringify(value)}` };
      return { path, reason: `${issue.format} expected, got ${JSON.stringify(value)}` };
    case "invalid_value":
      return { path, reason: `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, got ${JSON.stringify(value)}` };
    case "unrecognized_keys": {
      const known = knownKeysAt(ConfigSchema, path);
      const meant = issue.keys.length === 1 ? didYouMean(issue.keys[0]!, known) : undefined;
      const keys = `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
      return { path, reason: meant ? `${keys} (did you mean ${JSON.stringify(meant)}?)` : keys };
    }
    case "invalid_key":
      return { path: path.slice(0, -1), reason: `invalid key ${JSON.stringify(path[path.length - 1])}: ${issue.issues[0]?.code === "too_small" ? "must not be empty" : (issue.issues[0]?.message ?? "")}` };
    case "too_small":
      if (issue.origin === "string") return { path, reason: "must not be empty" };
      if (issue.origin === "array") return { path, reason: `needs at least ${issue.minimum} item(s)` };
      return { path, reason: `must be ${issue.inclusive ? ">=" : ">"} ${issue.minimum}, got ${JSON.stringify(value)}` };
    case "too_big":
      return { path, reason: `must be ${issue.inclusive ? "<=" : "<"} ${issue.maximum}, got ${JSON.stringify(value)}` };
    default:
      return { path, reason: issue.message };
  }
}

const ARTICLES: Record<string, string> = {
  record: "an object",
  object: "an object",
  array: "an array",
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
};

function article(expected: string): string {
  return ARTICLES[expected] ?? expected;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `a string (${JSON.stringify(value)})`;
  if (typeof value === "number") return `the number ${value}`;
  return String(value);
}

function valueAt(root: unknown, path: readonly JsonPathSegment[]): unknown {
  let current = root;
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** The keys the schema knows for the object at `path` (through optional values, records, arrays and unions). */
function knownKeysAt(schema: z.ZodType, path: readonly JsonPathSegment[]): string[] {
  if (schema instanceof z.ZodOptional) return knownKeysAt(schema.unwrap() as z.ZodType, path);
  if (schema instanceof z.ZodUnion) return [...new Set(schema.options.flatMap((option) => knownKeysAt(option as z.ZodType, path)))];
  const [head, ...rest] = path;
  if (schema instanceof z.ZodObject) {
    if (head === undefined) return Object.keys(schema.shape);
    const inner = (schema.shape as Record<string, z.ZodType>)[String(head)];
    return inner ? knownKeysAt(inner, rest) : [];
  }
  if (head === undefined) return [];
  if (schema instanceof z.ZodRecord) return knownKeysAt(schema.valueType as z.ZodType, rest);
  if (schema instanceof z.ZodArray) return knownKeysAt(schema.element as z.ZodType, rest);
  return [];
}
