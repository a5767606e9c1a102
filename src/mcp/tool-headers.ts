/**
 * Custom tool headers (2026-07-28 Streamable HTTP, SEP-2243): a tool's inputSchema may mark a
 * property with `x-mcp-header: NAME`, and the client then mirrors that argument into an
 * `Mcp-Param-NAME` header (v2's callTool does, from the listed definition). A client on HTTP MUST
 * leave out a tool whose declarations break the rules; this says which rule, if any.
 */

const KEY = "x-mcp-header";
/** An RFC 9110 token: no spaces, control characters, non-ASCII or delimiters such as ":". */
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** The property types a header can carry; `number` is ruled out by the spec, as are objects, arrays and null. */
const HEADER_TYPES = new Set(["string", "integer", "boolean"]);
/**
 * Keywords whose subschemas are not reached by a chain of `properties` alone: a declaration under
 * any of them (or under `properties` below one of them) makes the tool invalid.
 */
const UNREACHABLE = new Set([
  "items", "prefixItems", "contains", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames",
  "patternProperties", "dependentSchemas", "oneOf", "anyOf", "allOf", "not", "if", "then", "else", "$defs", "definitions",
]);
/** Of those, the ones whose value maps names to subschemas. */
const NAMED = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"]);
/** The most characters of a server's own text a reason quotes. */
const MAX_QUOTED = 80;

/** Why the tool's x-mcp-header declarations are invalid (one line), or undefined when they are valid or absent. */
export function headerDeclarationFault(inputSchema: unknown): string | undefined {
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
    const schema = node as Record<string, unknown>;
    if (KEY in schema) {
      const fault = declarationFault(schema, path, reachable, seen);
      if (fault) return fault;
    }
    for (const [keyword, value] of Object.entries(schema)) {
      const named = keyword === "properties";
      for (const [name, child] of subschemas(keyword, value)) {
        const fault = visit(child, [...path, named ? name : `<${keyword}>`], reachable && named);
        if (fault) return fault;
      }
    }
    return undefined;
  };
  return visit(inputSchema, [], true);
}

/** The subschemas under one keyword of a schema, each with its property name (under `properties`) or its keyword. */
function subschemas(keyword: string, value: unknown): [string, unknown][] {
  const isMap = typeof value === "object" && value !== null && !Array.isArray(value);
  if (keyword === "properties") return isMap ? Object.entries(value) : [];
  if (!UNREACHABLE.has(keyword)) return [];
  const branches = Array.isArray(value) ? value : isMap && NAMED.has(keyword) ? Object.values(value) : [value];
  return branches.map((branch: unknown) => [keyword, branch]);
}

function declarationFault(schema: Record<string, unknown>, path: string[], reachable: boolean, seen: Map<string, string>): string | undefined {
  const where = path.length === 0 ? "the schema's root" : `property ${quoted(path.join("."))}`;
  const name = schema[KEY];
  if (path.length === 0 || !reachable) return `x-mcp-header on ${where}, which is not reached through "properties" alone`;
  if (typeof name !== "string" || name === "") return `x-mcp-header of ${where} is not a non-empty string`;
  if (!HTTP_TOKEN.test(name)) return `x-mcp-header ${quoted(name)} of ${where} is not an HTTP header name (RFC 9110 token)`;
  const type = schema.type;
  if (typeof type !== "string" || !HEADER_TYPES.has(type)) {
    return `x-mcp-header ${quoted(name)} is on ${where} of type ${typeof type === "string" ? quoted(type) : "(none)"}: only string, integer and boolean can be headers`;
  }
  const earlier = seen.get(name.toLowerCase());
  if (earlier !== undefined) return `x-mcp-header ${quoted(name)} of ${where} repeats ${quoted(earlier)} (header names ignore case)`;
  seen.set(name.toLowerCase(), name);
  return undefined;
}

/** Server text quoted in plain ASCII on one line (control and other characters escaped as \uXXXX), long text cut. */
function quoted(text: string): string {
  const cut = text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}...` : text;
  return JSON.stringify(cut).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
