/** A segment of a location inside the config document. */
export type JsonPathSegment = string | number;

/**
 * A config file that cannot be used. `message` is the whole one-line report
 * (`FILE: JSON.PATH: what is wrong`); `file`, `path` and `reason` are its parts, for
 * callers that lay it out themselves.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly file: string | undefined;
  /** Dotted JSON path (`mcpServers.github.args[1]`), or undefined when the whole file is at fault. */
  readonly path: string | undefined;
  readonly reason: string;

  constructor(reason: string, where: { file?: string; path?: readonly JsonPathSegment[] | string; line?: number; column?: number } = {}) {
    const path = typeof where.path === "string" ? where.path : where.path && where.path.length > 0 ? formatJsonPath(where.path) : undefined;
    const fileAt = where.file !== undefined && where.line !== undefined ? `${where.file}:${where.line}:${where.column ?? 1}` : where.file;
    super([fileAt, path, reason].filter((part) => part !== undefined).join(": "));
    this.file = where.file;
    this.path = path;
    this.reason = reason;
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** `["mcpServers", "my server", "args", 1]` → `mcpServers["my server"].args[1]` */
export function formatJsonPath(path: readonly JsonPathSegment[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
