import { statSync } from "node:fs";
import { basename, isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { isStdioServer, type ServerConfig } from "../config/schema.js";
import type { Root } from "./types.js";

/**
 * A root as the protocol wants it: a `file:` URI with a name. A directory is resolved
 * against `cwd`; a `file:` URI is kept as it is. Anything else is not a root.
 */
export function toRoot(entry: string, cwd: string): Root {
  // A scheme has two letters or more: "C:\\dir" is a Windows path.
  if (/^[a-z][a-z0-9+.-]+:/i.test(entry)) {
    if (!entry.startsWith("file:")) throw new Error(`root "${entry}" is not a directory or a file: URI`);
    const url = new URL(entry);
    return { uri: url.href, name: basename(decodeURIComponent(url.pathname)) || url.href };
  }
  const path = resolve(cwd, entry);
  return { uri: pathToFileURL(path).href, name: basename(path) || path };
}

/** Roots from a list of directories and URIs, duplicates dropped, order kept. */
export function toRoots(entries: readonly string[], cwd: string): Root[] {
  const seen = new Set<string>();
  const roots: Root[] = [];
  for (const entry of entries) {
    const root = toRoot(entry, cwd);
    if (seen.has(root.uri)) continue;
    seen.add(root.uri);
    roots.push(root);
  }
  return roots;
}

/**
 * The roots the hub offers: one list for every server, unless a server's config names its
 * own. Changing the shared list tells the servers that follow it.
 */
export class RootList {
  private shared: Root[];

  constructor(
    roots: readonly Root[],
    private readonly perServer: ReadonlyMap<string, readonly Root[]>,
  ) {
    this.shared = [...roots];
  }

  /** The shared list. */
  all(): Root[] {
    return [...this.shared];
  }

  /** What `roots/list` answers this server. */
  for(server: string): Root[] {
    return [...(this.perServer.get(server) ?? this.shared)];
  }

  /** Replaces the shared list; returns the servers whose roots changed (those without roots of their own). */
  replace(roots: readonly Root[], servers: readonly string[]): string[] {
    const before = JSON.stringify(this.shared);
    this.shared = [...roots];
    if (JSON.stringify(this.shared) === before) return [];
    return servers.filter((server) => !this.perServer.has(server));
  }
}

/**
 * The directories a stdio server's arguments name (absolute, or starting with `.`), as the
 * server would resolve them in its working directory: with no roots configured, these are the
 * roots it is offered, so a server that serves its roots (server-filesystem does, in place of
 * its arguments) keeps serving what its entry names, as it does under a client without roots.
 */
export function directoryArguments(server: ServerConfig): string[] {
  if (!isStdioServer(server)) return [];
  const workDir = resolve(process.cwd(), server.cwd ?? ".");
  return (server.args ?? [])
    .filter((arg) => isAbsolute(arg) || arg === "." || arg === ".." || /^\.\.?[\\/]/.test(arg))
    .map((arg) => resolve(workDir, arg))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true);
}
