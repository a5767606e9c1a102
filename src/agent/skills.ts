import type { CallToolOptions, CallToolResult, HubSkill, HubTool, LoadedSkill } from "../mcp/types.js";
import type { ToolHost } from "./tool-host.js";

/** What the agent needs to offer servers' skills (SEP-2640): the hub, or a fake in tests. */
export interface SkillHost {
  skills(): readonly HubSkill[];
  loadSkill(name: string, options?: { server?: string; file?: string; signal?: AbortSignal }): Promise<LoadedSkill>;
  /** Brings the skills listed up to date, as ToolHost.refreshTools does the tools: awaited before each model request. */
  refreshSkills?(signal?: AbortSignal): Promise<void>;
}

/** The built-in tool through which the model loads a skill (a server's own tool of this name wins). */
export const SKILL_TOOL_NAME = "load_skill";
/** Skills whose summaries the model is shown; more are named by count (the person still has /skills). */
export const MAX_OFFERED_SKILLS = 100;
/** One skill's summary in the tool's description is cut here. */
const MAX_SUMMARY_CHARS = 240;
/** Where the built-in tool says it comes from, until a call names the skill's own server. */
const BUILTIN_SERVER = "toolbridge";

/**
 * The host's tools and `load_skill`, whose description lists each skill's name, server and
 * summary, so that in native and prompt mode alike the model sees what it may load. A call is
 * approved as a read of the skill's own server (approvalSubject), then loads the skill's
 * SKILL.md (or one of its files), verified by the hub.
 */
export function withSkills(host: ToolHost, skills: SkillHost): ToolHost {
  let source: readonly HubTool[] | undefined;
  let key = "";
  let list: readonly HubTool[] = [];
  // The built-in tool as last listed: known by identity, which no server's tool can take on.
  let builtin: HubTool | undefined;
  const isBuiltin = (tool: HubTool | undefined): boolean => tool !== undefined && tool === builtin;
  const tools = (): readonly HubTool[] => {
    const hubTools = host.tools();
    const offered = skills.skills().slice(0, MAX_OFFERED_SKILLS + 1);
    const nextKey = offered.map((skill) => `${skill.server}\u0000${skill.name}\u0000${skill.description}`).join("\u0001");
    if (hubTools === source && nextKey === key) return list;
    source = hubTools;
    key = nextKey;
    const all = skills.skills();
    builtin = all.length === 0 || hubTools.some((tool) => tool.name === SKILL_TOOL_NAME) ? undefined : skillTool(all);
    list = builtin ? Object.freeze([...hubTools, builtin]) : hubTools;
    return list;
  };
  return {
    tools,
    async refreshTools(signal?: AbortSignal): Promise<void> {
      await Promise.all([host.refreshTools?.(signal), skills.refreshSkills?.(signal)]);
    },
    async callTool(name: string, args: Record<string, unknown>, options: CallToolOptions = {}): Promise<CallToolResult> {
      if (name !== SKILL_TOOL_NAME || !isBuiltin(tools().find((tool) => tool.name === name))) return host.callTool(name, args, options);
      try {
        const loaded = await skills.loadSkill(String(args.name), {
          ...(typeof args.server === "string" ? { server: args.server } : {}),
          ...(typeof args.file === "string" && args.file !== "" ? { file: args.file } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        return { content: [{ type: "text", text: skillText(loaded) }] };
      } catch (error) {
        if (options.signal?.aborted) throw error;
        return { isError: true, content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }] };
      }
    },
    approvalSubject(tool: HubTool, args: Record<string, unknown>): HubTool {
      if (!isBuiltin(tool)) return host.approvalSubject?.(tool, args) ?? tool;
      const matching = skills.skills().filter((skill) => skill.name === args.name && (typeof args.server !== "string" || skill.server === args.server));
      const skill = matching.length === 1 ? matching[0]! : undefined;
      if (!skill) return tool;
      // A read of that server: its trust and autoApprove apply, and "allow for this session" covers this skill of it only.
      return { ...tool, server: skill.server, description: `Load the skill "${skill.name}": ${skill.description}` };
    },
  };
}

/** Skills taken from each server in turn: a server listing a thousand cannot crowd out another's. */
function inTurn(skills: readonly HubSkill[]): HubSkill[] {
  const byServer = new Map<string, HubSkill[]>();
  for (const skill of skills) byServer.set(skill.server, [...(byServer.get(skill.server) ?? []), skill]);
  const queues = [...byServer.values()];
  const out: HubSkill[] = [];
  for (let index = 0; out.length < Math.min(skills.length, MAX_OFFERED_SKILLS); index++) {
    for (const queue of queues) if (index < queue.length && out.length < MAX_OFFERED_SKILLS) out.push(queue[index]!);
  }
  return out;
}

function skillTool(skills: readonly HubSkill[]): HubTool {
  const offered = inTurn(skills);
  const lines = offered.map((skill) => `- ${skill.name} (server ${skill.server}): ${summary(skill.description)}`);
  if (skills.length > offered.length) lines.push(`(and ${skills.length - offered.length} more skills not listed here)`);
  const names = [...new Set(offered.map((skill) => skill.name))];
  const servers = [...new Set(offered.map((skill) => skill.server))];
  return {
    name: SKILL_TOOL_NAME,
    server: BUILTIN_SERVER,
    originalName: SKILL_TOOL_NAME,
    title: "Load skill",
    description: [
      "Load a skill: instructions for one kind of task, from an MCP server. When the user's request matches a skill below, load it first and follow it.",
      "A loaded skill may name other files of its own; load one with `file` set to its path.",
      "",
      "Skills:",
      ...lines,
    ].join("\n"),
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", enum: names, description: "the skill's name" },
        server: { type: "string", enum: servers, description: "the skill's server, when two servers offer that name" },
        file: { type: "string", description: "a file of the skill, by its path in the skill (default: its SKILL.md)" },
      },
      required: ["name"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  };
}

function summary(description: string): string {
  const flat = description.replace(/\s+/g, " ").trim();
  return flat.length > MAX_SUMMARY_CHARS ? `${flat.slice(0, MAX_SUMMARY_CHARS)}…` : flat;
}

/** A loaded file as the model reads it: where it came from, the text, and what else the skill holds. */
export function skillText(skill: LoadedSkill): string {
  const parts = [`Skill "${skill.name}" from server "${skill.server}" (${skill.uri}), verified against the server's listing:`, "", skill.text];
  if (skill.otherFiles.length > 0) parts.push("", `Other files of this skill (load one with ${SKILL_TOOL_NAME} and file): ${skill.otherFiles.join(", ")}`);
  return parts.join("\n");
}
