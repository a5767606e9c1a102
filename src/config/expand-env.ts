import { ConfigError, type JsonPathSegment } from "./errors.js";

export type Environment = Readonly<Record<string, string | undefined>>;

// `$${` is the escape for a literal `${`; anything else that is not `${NAME}` or
// `${NAME:-default}` stays as written, so shell snippets in args survive.
const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The fields of a server entry in which `${VAR}` expands; nowhere else. */
const EXPANDED_FIELDS = ["command", "args", "env", "url", "headers", "oauth"] as const;

export interface ExpandOptions {
  env: Environment;
  file?: string;
  /** Leave references to unset variables as written instead of failing (for disabled servers). */
  lenient?: boolean;
}

/** Expands one string; `path` names where it sits, for the error. */
export function expandString(value: string, path: readonly JsonPathSegment[], options: ExpandOptions): string {
  return value.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
    if (name === undefined) return "${";
    const defined = options.env[name];
    // As in the shell, `:-` also replaces a variable that is set but empty.
    if (fallback !== undefined) return defined === undefined || defined === "" ? fallback : defined;
    if (defined !== undefined) return defined;
    if (options.lenient) return match;
    throw new ConfigError(`environment variable ${name} is not set (write \${${name}:-default} to give a default)`, {
      file: options.file,
      path,
    });
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
