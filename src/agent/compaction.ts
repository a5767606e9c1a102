import { LlmError } from "../llm/errors.js";
import type { ChatModel, ContentPart, Message, Usage } from "../llm/types.js";
import { partText } from "../llm/content-part.js";

/** What compacting did: the conversation's size before and after, and the summary it continues from. */
export interface Compaction {
  summary: string;
  /** The new conversation: the summary, as context the model continues from. */
  messages: Message[];
  messagesBefore: number;
  /** The summary request's usage, when the server reported it (outputTokens: the summary's size). */
  usage?: Usage;
  /** The oldest part of the conversation was left out of the summary request, which did not fit the context otherwise. */
  truncated: boolean;
}

export interface CompactOptions {
  signal?: AbortSignal;
  /** The conversation's text sent for summary is cut to its last this many characters (default 400,000). */
  maxChars?: number;
}

const DEFAULT_MAX_CHARS = 400_000;
/** Each tool result is shown to the summarizer up to this many characters. */
const MAX_RESULT_CHARS = 4_000;
/** How many times a summary request that does not fit is sent again with the older half of what is left dropped. */
const MAX_SHRINKS = 3;

const SUMMARIZER = "You write summaries of conversations between a user and an AI assistant that uses tools, so that the conversation can continue from the summary alone.";
const INSTRUCTION = [
  "Summarize the conversation below so that the assistant can continue it from your summary alone.",
  "Keep: what the user wants and asked for, decisions made, facts learned (including what tools returned that still matters: names, numbers, paths, ids), what was done, and what is still open.",
  "Be concise, but keep every detail needed to go on. Write only the summary.",
].join(" ");
const CUT = "(the earliest part of the conversation is left out here: it did not fit)\n";

/**
 * Asks the model for a summary of the conversation (one request, no tools offered) and gives
 * the conversation to continue from it. The conversation goes to the model as text in one
 * message, so its tool calls need no tool support and every provider reads it alike. A
 * conversation too long for the model's context has its oldest part left out, halving what
 * is sent until it fits (a few times at most).
 */
export async function compactConversation(model: ChatModel, conversation: readonly Message[], options: CompactOptions = {}): Promise<Compaction> {
  const full = conversationText(conversation);
  let text = full.length > (options.maxChars ?? DEFAULT_MAX_CHARS) ? CUT + full.slice(-(options.maxChars ?? DEFAULT_MAX_CHARS)) : full;
  for (let shrinks = 0; ; shrinks++) {
    try {
      const { summary, usage } = await askForSummary(model, text, options.signal);
      if (summary === "") throw new LlmError("bad-response", "The model answered the request for a summary with nothing; the conversation is kept as it was.");
      return {
        summary,
        messages: summaryConversation(summary),
        messagesBefore: conversation.length,
        ...(usage ? { usage } : {}),
        truncated: text !== full,
      };
    } catch (error) {
      if (!(error instanceof LlmError && error.code === "context-length") || shrinks >= MAX_SHRINKS) throw error;
      const body = text.startsWith(CUT) ? text.slice(CUT.length) : text;
      text = CUT + body.slice(Math.floor(body.length / 2));
    }
  }
}

/** The conversation that continues from a summary: it, and the assistant taking it up (roles alternate, as some chat templates require). */
export function summaryConversation(summary: string): Message[] {
  return [
    { role: "user", content: `This conversation was compacted. A summary of it so far:\n\n${summary}` },
    { role: "assistant", content: "Understood; I will continue from this summary." },
  ];
}

async function askForSummary(model: ChatModel, text: string, signal: AbortSignal | undefined): Promise<{ summary: string; usage?: Usage }> {
  let summary = "";
  let usage: Usage | undefined;
  const messages: Message[] = [
    { role: "system", content: SUMMARIZER },
    { role: "user", content: `${INSTRUCTION}\n\n<conversation>\n${text}\n</conversation>` },
  ];
  for await (const event of model.stream({ messages, ...(signal ? { signal } : {}) })) {
    if (event.type === "text-delta") summary += event.text;
    else if (event.type === "usage") usage = event.usage;
  }
  // A reasoning model served without a reasoning parser writes its thinking into the text.
  return { summary: summary.replace(/^\s*<think>[^]*?<\/think>/, "").trim(), ...(usage ? { usage } : {}) };
}

/** The conversation as plain text, one block per message, tool results cut to their head. */
export function conversationText(conversation: readonly Message[]): string {
  return conversation
    .map((message) => {
      switch (message.role) {
        case "system":
          return `[system]\n${message.content}`;
        case "user":
          return `[user]\n${partsText(message.content)}`;
        case "assistant": {
          const calls = (message.toolCalls ?? []).map((call) => `[assistant called ${call.name} with ${call.arguments}]`);
          return [message.content.trim() === "" ? undefined : `[assistant]\n${message.content}`, ...calls].filter((part) => part !== undefined).join("\n");
        }
        case "tool": {
          const result = partsText(message.content);
          const head = result.length > MAX_RESULT_CHARS ? `${result.slice(0, MAX_RESULT_CHARS)}… (${result.length - MAX_RESULT_CHARS} more characters)` : result;
          return `[${message.name} ${message.isError ? "failed" : "returned"}]\n${head}`;
        }
      }
    })
    .filter((block) => block !== "")
    .join("\n\n");
}

function partsText(content: string | ContentPart[]): string {
  if (typeof content === "string") return content;
  return content.map(partText).join("");
}
