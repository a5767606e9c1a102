import { saveTranscript, loadTranscript } from "../../agent/transcript.js";
import { lstat } from "node:fs/promises";
import { renderConversation } from "../render/transcript-view.js";
import { fileStamp } from "../ui/saved-sessions.js";
import { toRoot } from "../../mcp/roots.js";
import { oneLine } from "../render/one-line.js";
import { renderServers, renderSkills, renderTools } from "../render/listings.js";
import { loadSkillIntoConversation } from "./skill-command.js";
import { renderToolDetail } from "../render/tool-detail.js";
import { findTool } from "../tool-lookup.js";
import { promptCommands, renderPromptCommands } from "./prompt-commands.js";
import { compactConversation, showUsage } from "./context-commands.js";
import { showModels, switchModel } from "./model-command.js";
import { saveToolImages, showToolResult } from "./tool-result-commands.js";
import { expandHome } from "./home-path.js";
import type { SlashContext } from "./slash-context.js";

interface SlashCommand {
  name: string;
  usage: string;
  help: string;
  /** Returns "exit" to end the chat. */
  run(context: SlashContext, argument: string): Promise<void | "exit"> | void | "exit";
}

const COMMANDS: SlashCommand[] = [
  {
    name: "tools",
    usage: "/tools [NAME]",
    help: "list the tools the model is offered, or show one with its arguments",
    async run({ session, colors, print, columns }, argument) {
      await session.hub.currentTools();
      const tools = session.agent.tools();
      if (argument !== "") {
        const tool = findTool(tools, argument);
        return print(tool ? renderToolDetail(tool, colors, columns) : colors.red(`unknown tool "${argument}"; /tools lists them`));
      }
      if (tools.length === 0) return print(colors.dim("no tools (no server is connected, or the allow-list hides them all)"));
      print(renderTools(tools, { colors, maxWidth: columns }));
    },
  },
  {
    name: "skills",
    usage: "/skills [NAME]",
    help: "list the skills servers offer, or load one into the conversation (verified against its server's listing)",
    async run(context, argument) {
      const { session, colors, print, columns } = context;
      if (argument !== "") return loadSkillIntoConversation(context, argument);
      const skills = session.hub.skills();
      if (skills.length === 0) return print(colors.dim("no skills (no connected server offers any)"));
      print(renderSkills(skills, { colors, maxWidth: columns }));
    },
  },
  {
    name: "servers",
    usage: "/servers",
    help: "show the MCP servers and their state",
    run({ session, colors, print, columns }) {
      print(renderServers(session.hub.servers(), { colors, maxWidth: columns }));
    },
  },
  {
    name: "roots",
    usage: "/roots [add|remove DIR]",
    help: "show the directories servers may work in, or change them (servers are told)",
    async run({ session, colors, print }, argument) {
      const [verb = "", ...rest] = argument.split(/\s+/);
      const dir = rest.join(" ");
      if (verb !== "") {
        if ((verb !== "add" && verb !== "remove") || dir === "") return print(colors.red("usage: /roots [add|remove DIR]"));
        const uri = toRoot(dir, process.cwd()).uri;
        const current = session.hub.roots().map((root) => root.uri);
        await session.hub.setRoots(verb === "add" ? [...current, uri] : current.filter((root) => root !== uri));
      }
      const roots = session.hub.roots();
      print(roots.length ? roots.map((root) => `  ${oneLine(root.uri)}`).join("\n") : colors.dim("no roots"));
    },
  },
  {
    name: "model",
    usage: "/model [NAME]",
    help: "show the model and those the server lists, or switch to one of them (the conversation is kept)",
    run: (context, argument) => (argument === "" ? showModels(context) : switchModel(context, argument)),
  },
  {
    name: "usage",
    usage: "/usage",
    help: "tokens and time so far, and how much of the model's context the conversation fills",
    run: (context) => showUsage(context),
  },
  {
    name: "compact",
    usage: "/compact",
    help: "replace the conversation by the model's summary of it, to continue from",
    run: (context) => compactConversation(context),
  },
  {
    name: "clear",
    usage: "/clear",
    help: "start a new conversation (the last one stays saved for --resume)",
    run({ session, colors, print, newConversation }) {
      session.agent.clear();
      session.usage.conversationReplaced();
      newConversation?.();
      print(colors.dim("conversation cleared"));
    },
  },
  {
    name: "save",
    usage: "/save [FILE]",
    help: "save the conversation as a JSONL transcript (default: conversation-DATE.jsonl here)",
    async run({ session, colors, print, confirm }, argument) {
      const file = argument === "" ? defaultTranscriptName() : expandHome(argument);
      // A link is never followed (it could point anywhere); an existing file is replaced only when the person says so.
      const existing = await lstat(file).catch(() => undefined);
      if (existing?.isSymbolicLink()) return print(colors.red(`${oneLine(file)} is a symbolic link; /save does not follow links: name another file`));
      if (existing && !existing.isFile()) return print(colors.red(`${oneLine(file)} exists and is not a file: name another file`));
      if (existing && !(await confirm?.(`${oneLine(file)} exists. Replace it with this conversation?`))) {
        return print(colors.red(`${oneLine(file)} exists; not replaced${confirm ? "" : " (nobody to ask here)"}: name another file`));
      }
      const { agent } = session;
      const meta = { provider: agent.model.provider, model: agent.model.modelId, ...(agent.systemPrompt ? { systemPrompt: agent.systemPrompt } : {}) };
      await saveTranscript(file, agent.messages, meta, { overwrite: existing !== undefined });
      print(colors.dim(`saved ${agent.messages.length} messages to ${file}`));
    },
  },
  {
    name: "load",
    usage: "/load FILE",
    help: "continue a conversation from a transcript",
    async run({ session, colors, print, newConversation }, argument) {
      if (argument === "") return print(colors.red("usage: /load FILE"));
      const file = expandHome(argument);
      const transcript = await loadTranscript(file);
      session.agent.replaceMessages(transcript.messages);
      session.usage.conversationReplaced();
      newConversation?.();
      if (transcript.messages.length > 0) print(renderConversation(transcript.messages, colors));
      print(colors.dim(`loaded ${transcript.messages.length} messages from ${file}`));
    },
  },
  {
    name: "result",
    usage: "/result [N]",
    help: "show tool result N (default: the last) whole",
    run: showToolResult,
  },
  {
    name: "image",
    usage: "/image [N] [FILE]",
    help: "save the images of tool result N (default: the last with one) to FILE (default: image-N.png here)",
    run: saveToolImages,
  },
  {
    name: "help",
    usage: "/help",
    help: "this list",
    async run({ session, colors, print }) {
      const width = Math.max(...COMMANDS.map((c) => c.usage.length));
      print(COMMANDS.map((c) => `  ${colors.bold(c.usage.padEnd(width))}  ${c.help}`).join("\n"));
      print(`${colors.bold("Server prompts")} ${colors.dim("(arguments in order, or name=value; Tab completes)")}`);
      print(renderPromptCommands(promptCommands(await session.hub.prompts(), BUILTIN_COMMANDS), colors));
      print(colors.dim("  Ctrl-C cancels the answer being written; Ctrl-C twice at an empty prompt (or Ctrl-D) quits."));
    },
  },
  { name: "exit", usage: "/exit", help: "quit", run: () => "exit" },
];

/** The built-in commands' names (without the slash), which a server's prompt never shadows. */
export const BUILTIN_COMMANDS: readonly string[] = [...COMMANDS.map((c) => c.name), "quit"];

/** The built-in commands for completion: `/name` and what it does. */
export function builtinCommandList(): Array<{ name: string; help: string }> {
  return COMMANDS.map((c) => ({ name: c.name, help: c.help }));
}

function defaultTranscriptName(now = new Date()): string {
  return `conversation-${fileStamp(now)}.jsonl`;
}

/** Runs a `/command`; errors (a missing file, a model that does not exist) are printed, the chat goes on. */
export async function runSlashCommand(line: string, context: SlashContext): Promise<void | "exit"> {
  const match = /^\/(\S*)\s*(.*)$/.exec(line.trim());
  const name = match?.[1] ?? "";
  const argument = (match?.[2] ?? "").trim();
  const command = COMMANDS.find((c) => c.name === name) ?? (name === "quit" ? COMMANDS.find((c) => c.name === "exit") : undefined);
  if (!command) {
    context.print(context.colors.red(`unknown command /${name}; /help lists them`));
    return;
  }
  try {
    return await command.run(context, argument);
  } catch (error) {
    context.print(`${context.colors.red("toolbridge:")} ${oneLine(error instanceof Error ? error.message : String(error))}`);
  }
}
