import type { ContentPart, Message } from "../../llm/types.js";
import { attachMentions, type Attachment } from "./mentions.js";
import type { Colors } from "../render/colors.js";
import { renderPromptMessages } from "../render/content.js";
import type { AgentSession } from "./session.js";
import { BUILTIN_COMMANDS } from "./slash-commands.js";
import { findPromptCommand, parsePromptArguments, promptCommands, promptTurn, type PromptCommand } from "./prompt-commands.js";

/** What a `/word` line turns into: a built-in command to run, or a prompt's messages to send. */
export type SlashInput =
  | { kind: "command" }
  | {
      kind: "prompt";
      /** Messages that go into the conversation before the turn. */
      before: Message[];
      /** What is sent as the user's turn (null when the prompt ends with the assistant's words). */
      input: string | ContentPart[] | null;
      /** The prompt's messages as the screen shows them. */
      shown: string;
    };

/** A typed message as it is sent: with the resources it mentions (`@uri`) attached. */
export function messageInput(text: string, session: AgentSession): Promise<{ content: string | ContentPart[]; attachments: Attachment[] }> {
  return attachMentions(text, (uri) => session.hub.readResource(uri));
}

/** Starts a prompt command's turn: its earlier messages go into the conversation; returns what is sent. */
export function beginPromptTurn(session: AgentSession, prompt: { before: Message[]; input: string | ContentPart[] | null }): string | ContentPart[] | null {
  session.agent.replaceMessages([...session.agent.messages, ...prompt.before]);
  return prompt.input;
}

/** The prompt commands the connected servers offer now (they follow servers joining and leaving, and list_changed). */
export async function currentPromptCommands(session: AgentSession): Promise<PromptCommand[]> {
  return promptCommands(await session.hub.prompts(), BUILTIN_COMMANDS);
}

/**
 * A built-in command, or a server's prompt fetched with the arguments typed after it. A name
 * no server offers yet is looked up again once the servers still starting have started.
 * A missing argument or a server's error throws (the caller prints it).
 */
export async function slashInput(line: string, session: AgentSession, colors: Colors): Promise<SlashInput> {
  const match = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim());
  const name = match?.[1] ?? "";
  if (BUILTIN_COMMANDS.includes(name)) return { kind: "command" };
  let command = findPromptCommand(await currentPromptCommands(session), name);
  if (!command && session.hub.servers().some((server) => server.status === "connecting")) {
    await session.ready;
    command = findPromptCommand(await currentPromptCommands(session), name);
  }
  if (!command) return { kind: "command" };
  const args = parsePromptArguments(command, match?.[2] ?? "");
  const result = await session.hub.getPrompt(command.prompt.name, args, command.prompt.server);
  return { kind: "prompt", ...promptTurn(result), shown: renderPromptMessages(result, colors).trimEnd() };
}
