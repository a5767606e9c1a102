import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Server } from "@modelcontextprotocol/server";
import { RESOURCES_DIRECTORY_READ_METHOD, SKILLS_EXTENSION_ID, SKILLS_GET_METHOD, SKILLS_LIST_METHOD } from "@modelcontextprotocol/server/ext/skills";
import { z } from "zod";
import type { Hub } from "../mcp/hub.js";
import { resolve } from "../mcp/skills.js";
import type { HubSkillEntry } from "../mcp/types.js";

/** Skill entries per `skills/list` page of the hub served as one MCP server. */
export const SKILLS_PAGE_SIZE = 100;

/** The hub's listing is its own per caller, and taken again at each request: nothing of it is for a client to keep. */
const NOT_CACHED = { ttlMs: 0, cacheScope: "private" } as const;

type SkillEntries = Pick<Hub, "skillEntries">;
type SkillSource = Pick<Hub, "skillEntries" | "readSkillDirectory" | "serversOffering">;

/**
 * The skills (SEP-2640) of the servers `reads` lets the caller read, as those servers listed them: digests and sizes
 * untouched, so that the client verifies each file it reads against its server's word. A SKILL.md URI two servers
 * list is the first server's (in the config's order): a URI names one skill, and a file read goes to one server.
 */
export async function readableSkills(hub: SkillEntries, reads: (server: string) => boolean): Promise<HubSkillEntry[]> {
  const seen = new Set<string>();
  return (await hub.skillEntries()).filter((entry) => reads(entry.server) && !seen.has(entry.uri) && seen.add(entry.uri));
}

/**
 * Serves `skills/list` (paged) and `skills/get` from readableSkills, and declares the extension; with `directoryRead`
 * where a server the caller may read declares it, `resources/directory/read` going to the server whose skill's folder
 * holds the directory. A skill's files are read with `resources/read`, which goes to that server too (skillFileOwner).
 */
export function serveSkills(server: Server, hub: SkillSource, reads: (server: string) => boolean): void {
  const directories = hub.serversOffering("skill directories").some(reads);
  server.registerCapabilities({ extensions: { [SKILLS_EXTENSION_ID]: directories ? { directoryRead: true } : {} } });
  const entry = ({ server: _server, ...skill }: HubSkillEntry) => skill;
  server.setRequestHandler(SKILLS_LIST_METHOD, { params: z.looseObject({ cursor: z.string().optional() }) }, async ({ cursor }) => {
    const skills = await readableSkills(hub, reads);
    const start = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isSafeInteger(start) || start < 0 || start > skills.length) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `skills/list: no such cursor: ${cursor}`);
    const next = start + SKILLS_PAGE_SIZE;
    return { skills: skills.slice(start, next).map(entry), ...(next < skills.length ? { nextCursor: String(next) } : {}), ...NOT_CACHED };
  });
  server.setRequestHandler(SKILLS_GET_METHOD, { params: z.looseObject({ uri: z.string() }) }, async ({ uri }) => {
    const skill = (await readableSkills(hub, reads)).find((candidate) => sameUri(candidate.uri, uri));
    if (!skill) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No skill is served at ${uri}`);
    return { skill: entry(skill), ...NOT_CACHED };
  });
  if (!directories) return;
  server.setRequestHandler(RESOURCES_DIRECTORY_READ_METHOD, { params: z.looseObject({ uri: z.string(), cursor: z.string().optional() }) }, async ({ uri, cursor }) => {
    // Every page is read from the server at once: the hub's answer is that one page.
    if (cursor !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `resources/directory/read: no such cursor: ${cursor}`);
    // A skill's folder may be named without its trailing slash.
    const owner = skillFileOwner(await readableSkills(hub, reads), uri.endsWith("/") ? uri : `${uri}/`);
    if (owner === undefined || !hub.serversOffering("skill directories").includes(owner)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${uri} is not a directory resource`);
    try {
      return { resources: await hub.readSkillDirectory(uri, owner), ...NOT_CACHED };
    } catch (error) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, error instanceof Error ? error.message : String(error));
    }
  });
}

/**
 * The server of a skill's file: the one whose skill's folder (that of its SKILL.md) holds `uri`. A skill's files are
 * resources its server need not list, nor match with a template.
 */
export function skillFileOwner(skills: readonly HubSkillEntry[], uri: string): string | undefined {
  const target = resolve(uri, uri);
  if (target === undefined) return undefined;
  return skills.find((skill) => {
    const folder = resolve(skill.uri, ".");
    return folder !== undefined && target.startsWith(folder);
  })?.server;
}

function sameUri(a: string, b: string): boolean {
  const href = resolve(a, a);
  return href !== undefined && href === resolve(b, b);
}
