import { ConfigError, type JsonPathSegment } from "./errors.js";

export type Environment = Readonly<Record<string, string | undefined>>;

// `$${` is the escape for a literal `${`; anything else that is not `${NAME}` or
// `${NAME:-default}` stays as written, so shell snippets in args survive. A default may
// itself hold references: `${TOKEN:-${FALLBACK_TOKEN}}`.
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** The fields of a server entry in which `${VAR}` expands; nowhere else. */
const EXPANDED_FIELDS = ["command", "args", "env", "cwd", "url", "headers", "roots", "oauth"] as const;

export interface ExpandOptions {
  env: Environment;
  file?: string;
  /** Leave references to unset variables as written instead of failing (for disabled servers). */
  lenient?: boolean;
}

/** Expands one string; `path` names where it sits, for the error. */
export function expandString(value: string, path: readonly JsonPathSegment[], options: ExpandOptions): string {
  let out = "";
  let i = 0;
  while (i < value.length) {
    const dollar = value.indexOf("$", i);
    if (dollar === -1) break;
    out += value.slice(i, dollar);
    if (value.startsWith("$${", dollar)) {
      out += "${";
      i = dollar + 3;
      continue;
    }
    const reference = value.startsWith("${", dollar) ? parseReference(value, dollar) : undefined;
    if (!reference) {
      out += "$";
      i = dollar + 1;
      continue;
    }
    out += resolve(reference, value.slice(dollar, reference.end), path, options);
    i = reference.end;
  }
  return out + value.slice(i);
}

interface Reference {
  name: string;
  /** The text of the default, not yet expanded. */
  fallback: string | undefined;
  /** Just past the closing brace. */
  end: number;
}

/** `${NAME}` or `${NAME:-default}` at `start`, the default's braces balanced; undefined when it is neither. */
function parseReference(value: string, start: number): Reference | undefined {
  const name = NAME.exec(value.slice(start + 2))?.[0];
  if (name === undefined) return undefined;
  let at = start + 2 + name.length;
  if (value[at] === "}") return { name, fallback: undefined, end: at + 1 };
  if (!value.startsWith(":-", at)) return undefined;
  at += 2;
  const fallbackStart = at;
  let depth = 0;
  for (; at < value.length; at++) {
    if (value.startsWith("${", at)) {
      depth++;
      at++;
    } else if (value[at] === "}") {
      if (depth === 0) return { name, fallback: value.slice(fallbackStart, at), end: at + 1 };
      depth--;
    }
  }
  return undefined;
}

function resolve(reference: Reference, written: string, path: readonly JsonPathSegment[], options: ExpandOptions): string {
  const defined = options.env[reference.name];
  // As in the shell, `:-` also replaces a variable that is set but empty.
  if (reference.fallback !== undefined) return defined === undefined || defined === "" ? expandString(reference.fallback, path, options) : defined;
  if (defined !== undefined) return defined;
  if (options.lenient) return written;
  throw new ConfigError(`environment variable ${reference.name} is not set (write \${${reference.name}:-default} to give a default)`, {
    file: options.file,
    path,
  });
}

/**
 * Expands `${VAR}` in the expandable fields of one raw (not yet validated) server entry.
 * Values of the wrong type are left for the schema to report.
 */
export function expandServerEntry(entry: Record<string, unknown>, path: readonly JsonPathSegment[], options: ExpandOptions): Record<string, unknown> {
  const out: Record<string, unknown> = { ...entry };
  for (const field of EXPANDED_FIELDS) {
    const value = entry[field];
    const at = [...path, field];
    if (typeof value === "string") out[field] = expandString(value, at, options);
    else if (Array.isArray(value)) out[field] = value.map((item, i) => (typeof item === "string" ? expandString(item, [...at, i], options) : item));
    else if (isPlainObject(value)) {
      out[field] = Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, typeof item === "string" ? expandString(item, [...at, key], options) : item]),
      );
    }
  }
  return out;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
