import { createHash } from "node:crypto";

/**
 * The exposed names of the hub's tools. Every provider accepts `^[a-zA-Z0-9_-]{1,64}$`
 * (OpenAI, Anthropic and Gemini each reject something outside it), and several servers
 * often offer the same name (`search`, `read_file`), so names are made unique and legal
 * here, in one pure function whose result depends only on the set of tools, never on the
 * order in which servers connected.
 */

export const MAX_TOOL_NAME_LENGTH = 64;
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** A tool as its server names it. */
export interface ToolRef {
  /** Config key of the server. */
  server: string;
  /** The tool's name on that server. */
  name: string;
}

const HASH_LENGTH = 8;
/** `_` plus the hash. */
const HASH_SUFFIX_LENGTH = HASH_LENGTH + 1;

/** Replaces every character outside [a-zA-Z0-9_-] (each code point, not each UTF-16 unit) with `_`. */
export function sanitizeName(raw: string): string {
  const sanitized = raw.replace(/[^a-zA-Z0-9_-]/gu, "_");
  return sanitized === "" ? "_" : sanitized;
}

function shortHash(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, HASH_LENGTH);
}

/**
 * Cuts a too-long name and appends a hash of `key` (the full original), so that two long
 * names sharing their first 55 characters still differ after cutting.
 */
function fit(name: string, key: string): string {
  if (name.length <= MAX_TOOL_NAME_LENGTH) return name;
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - HASH_SUFFIX_LENGTH)}_${shortHash(key)}`;
}

function refKey(ref: ToolRef): string {
  return `${ref.server}\u0000${ref.name}`;
}

/** `server__tool`, sanitized and fitted: the name a tool gets when its plain name collides. */
export function qualifiedName(server: string, tool: string): string {
  return fit(`${sanitizeName(server)}__${sanitizeName(tool)}`, refKey({ server, name: tool }));
}

/** The name a tool is exposed under while no other tool takes it: its own, sanitized and fitted. */
export function plainName(tool: string): string {
  return fit(sanitizeName(tool), tool);
}

/**
 * The candidate name of a tool at each level of disambiguation:
 * 0 the tool's own name, 1 `server__tool`, 2 `server__tool` with a hash of server and
 * original name (separates names that only differ in characters sanitizing replaced).
 */
function candidate(ref: ToolRef, level: number): string {
  if (level === 0) return plainName(ref.name);
  if (level === 1) return qualifiedName(ref.server, ref.name);
  const base = `${sanitizeName(ref.server)}__${sanitizeName(ref.name)}`;
  return `${base.slice(0, MAX_TOOL_NAME_LENGTH - HASH_SUFFIX_LENGTH)}_${shortHash(`level2\u0000${refKey(ref)}`)}`;
}

function groupByName(refs: readonly ToolRef[], nameOf: (ref: ToolRef) => string): Map<string, ToolRef[]> {
  const groups = new Map<string, ToolRef[]>();
  for (const ref of refs) {
    const name = nameOf(ref);
    const group = groups.get(name);
    if (group) group.push(ref);
    else groups.set(name, [ref]);
  }
  return groups;
}

/**
 * Assigns every tool a unique, provider-legal exposed name. A name stays as the server
 * gives it while it is unique; when two tools would share a name, all of them become
 * `server__tool` (no first-come winner, so the result is independent of order); what still
 * collides gets a hash suffix. Returns exposed name -> tool, sorted by exposed name; each
 * tool is the very object given (the first, for a tool given more than once).
 */
export function assignToolNames(tools: readonly ToolRef[]): Map<string, ToolRef> {
  const unique = new Map<string, ToolRef>();
  for (const ref of tools) if (!unique.has(refKey(ref))) unique.set(refKey(ref), ref);
  const refs = [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, ref]) => ref);

  // Each tool's level and its candidate at that level, made once per level: the hub names its tools again each
  // time a server connects, and every round of this loop made every candidate anew (sanitized, fitted).
  const level = new Map<ToolRef, number>(refs.map((ref) => [ref, 0]));
  const names = new Map<ToolRef, string>(refs.map((ref) => [ref, candidate(ref, 0)]));
  const nameOf = (ref: ToolRef): string => names.get(ref) as string;
  for (;;) {
    let bumped = false;
    for (const group of groupByName(refs, nameOf).values()) {
      if (group.length < 2) continue;
      for (const ref of group) {
        const current = level.get(ref) ?? 0;
        if (current < 2) {
          level.set(ref, current + 1);
          names.set(ref, candidate(ref, current + 1));
          bumped = true;
        }
      }
    }
    if (!bumped) break;
  }

  // Only a hash collision (or a tool literally named like another's hashed name) reaches
  // here; numbered suffixes in key order keep even that deterministic and unique.
  const result = new Map<string, ToolRef>();
  const taken = new Set(refs.map(nameOf));
  for (const [name, group] of groupByName(refs, nameOf)) {
    result.set(name, group[0] as ToolRef);
    for (let i = 1, n = 2; i < group.length; i++) {
      let numbered: string;
      do {
        const suffix = `_${n++}`;
        numbered = `${name.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
      } while (taken.has(numbered));
      taken.add(numbered);
      result.set(numbered, group[i] as ToolRef);
    }
  }
  return new Map([...result.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Names a caller may use besides the exposed one: `server__tool` in its sanitized form
 * and as written with the original tool name. Aliases two tools would share are left out.
 * Like assignToolNames, maps to the objects given (the first, for a tool given more than once).
 */
export function toolNameAliases(tools: readonly ToolRef[]): Map<string, ToolRef> {
  const aliases = new Map<string, ToolRef | null>();
  const add = (alias: string, ref: ToolRef): void => {
    const existing = aliases.get(alias);
    if (existing === undefined) aliases.set(alias, ref);
    else if (existing !== null && refKey(existing) !== refKey(ref)) aliases.set(alias, null);
  };
  for (const ref of tools) {
    add(qualifiedName(ref.server, ref.name), ref);
    add(`${ref.server}__${ref.name}`, ref);
  }
  const result = new Map<string, ToolRef>();
  for (const [alias, ref] of aliases) if (ref) result.set(alias, ref);
  return result;
}
