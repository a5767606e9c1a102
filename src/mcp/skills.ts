import type { Client, RequestOptions } from "@modelcontextprotocol/client";
import { SkillsClient, SkillVerificationError, type DirectoryResource, type Skill } from "@modelcontextprotocol/client/ext/skills";
import { HubError } from "./errors.js";
import { formatMiB } from "./limits.js";

/**
 * Skills over MCP (SEP-2640, the `io.modelcontextprotocol/skills` extension): a server lists
 * skills with `skills/list`, each entry carrying its SKILL.md frontmatter and every file's size
 * and SHA-256 digest; the files are resources, read only when a skill is loaded (never ahead of
 * need) and checked against the entry by the SDK's SkillsClient before anything uses them.
 */

/** Skills kept per server: a server listing more is cut here, with one log line. */
export const MAX_SKILLS_PER_SERVER = 1000;
/** The largest skill file loaded into a conversation; a larger one is refused before it is read. */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
const OVER_BOUND = `, over the ${MAX_SKILL_FILE_BYTES / 1024} KiB a skill file may take in a conversation`;
/** Files of a skill named to the model when it loads the skill. */
const MAX_FILES_NAMED = 50;
/** One line of a refusal: what a server wrote into it is cut here. */
const MAX_REASON_CHARS = 400;

/** The skills a server lists, valid entries only; each problem is one log line. Never reads a skill's files. */
export async function listSkills(client: Client, log: (line: string) => void, options: RequestOptions): Promise<Skill[]> {
  const skills = new SkillsClient(client, { skipInvalid: true });
  if (!skills.supported) return [];
  const listing = await skills.list({}, options);
  const { invalid } = listing;
  if (invalid.length > 0) {
    const first = invalid[0]!;
    log(
      `skills/list: left out ${invalid.length} invalid ${invalid.length === 1 ? "entry" : "entries"} ` +
        `(${oneLine(`${first.uri ?? `#${first.index}`}: ${first.reason}`)}${invalid.length > 1 ? `, and ${invalid.length - 1} more` : ""})`,
    );
  }
  const seen = new Set<string>();
  const unique = listing.skills.filter((skill) => {
    const name = skill.frontmatter.name;
    if (!seen.has(name)) return seen.add(name);
    log(`skills/list: left out ${oneLine(skill.uri)}: another skill of this server is named "${oneLine(name)}"`);
    return false;
  });
  if (unique.length > MAX_SKILLS_PER_SERVER) {
    log(`skills/list: lists ${unique.length} skills; kept the first ${MAX_SKILLS_PER_SERVER} (the limit)`);
    return unique.slice(0, MAX_SKILLS_PER_SERVER);
  }
  return unique;
}

/** One verified skill file, and the skill's other files (paths relative to its folder). */
export interface SkillFileText {
  uri: string;
  text: string;
  otherFiles: string[];
}

/**
 * Reads one file of a skill (default its SKILL.md) and verifies it: size bound, then the SDK's
 * checks (listed, size, digest, and for SKILL.md the frontmatter). Any failure is a HubError
 * with one line naming the skill and the server; nothing unverified comes back.
 */
export async function readSkillFile(client: Client, server: string, skill: Skill, file: string | undefined, options: RequestOptions): Promise<SkillFileText> {
  const name = skill.frontmatter.name;
  const refuse = (reason: string, cause?: unknown): HubError =>
    new HubError("skill-refused", `skill "${oneLine(name)}" of server "${server}" was not loaded: ${oneLine(reason)}`, { server, cause });
  const listed = listedEntry(skill, file);
  if (listed && listed.size > MAX_SKILL_FILE_BYTES) {
    throw refuse(`${listed.uri} is ${formatMiB(listed.size)}${OVER_BOUND}`);
  }
  let read;
  try {
    read = await new SkillsClient(client).read(skill, file, options);
  } catch (error) {
    if (error instanceof SkillVerificationError || error instanceof TypeError) throw refuse(error.message, error);
    throw error;
  }
  // A "dynamic" skill lists no sizes: the bound is checked on what came.
  if (read.bytes.byteLength > MAX_SKILL_FILE_BYTES) {
    throw refuse(`${read.uri} is ${formatMiB(read.bytes.byteLength)}${OVER_BOUND}`);
  }
  if (read.text === undefined) throw refuse(`${read.uri} is not text (${read.mimeType ?? "binary"})`);
  return { uri: read.uri, text: read.text, otherFiles: otherFiles(skill, read.uri) };
}

/** The children of a directory in a skill's folder (`resources/directory/read`, every page, as many as the client walks). */
export async function readSkillDirectory(client: Client, uri: string, options: RequestOptions): Promise<DirectoryResource[]> {
  return (await new SkillsClient(client).readDirectory(uri, options)).resources;
}

/** The entry of the file a ref names, when the skill lists it under the same spelling (the SDK checks every spelling). */
function listedEntry(skill: Skill, file: string | undefined): { uri: string; size: number } | undefined {
  if (skill.resources === "dynamic") return undefined;
  const target = resolve(skill.uri, file ?? skill.uri);
  return skill.resources.find((resource) => resolve(skill.uri, resource.uri) === target);
}

function otherFiles(skill: Skill, read: string): string[] {
  if (skill.resources === "dynamic") return [];
  const root = resolve(skill.uri, ".");
  const paths = skill.resources
    .map((resource) => resolve(skill.uri, resource.uri))
    .filter((uri) => uri !== resolve(skill.uri, read))
    .map((uri) => (root !== undefined && uri?.startsWith(root) ? uri.slice(root.length) : (uri ?? "")));
  return paths.length > MAX_FILES_NAMED ? [...paths.slice(0, MAX_FILES_NAMED), `(and ${paths.length - MAX_FILES_NAMED} more)`] : paths;
}

/** `ref` resolved against `base`, as one spelling; undefined where either is no URI. */
export function resolve(base: string, ref: string): string | undefined {
  try {
    return new URL(ref, base).href;
  } catch {
    return undefined;
  }
}

/** Server text in a one-line message: whitespace runs made one space, and cut. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_REASON_CHARS ? `${flat.slice(0, MAX_REASON_CHARS)}…` : flat;
}
