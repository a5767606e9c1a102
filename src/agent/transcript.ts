import { constants } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { z } from "zod";
import type { Message } from "../llm/types.js";
import { TranscriptError } from "./errors.js";

/**
 * A conversation as JSONL: a header line naming the format and its version, then one
 * message per line, so a transcript can be appended to, grepped and diffed.
 */

export const TRANSCRIPT_FORMAT = "toolbridge-transcript";
export const TRANSCRIPT_VERSION = 1;

export interface TranscriptHeader {
  format: typeof TRANSCRIPT_FORMAT;
  version: number;
  createdAt: string;
  provider?: string;
  model?: string;
  systemPrompt?: string;
  /** The MCP servers configured (and enabled) when it was saved: a resumed conversation says which differ now. */
  servers?: string[];
}

export interface Transcript {
  header: TranscriptHeader;
  messages: Message[];
}

const HeaderSchema = z.looseObject({
  format: z.literal(TRANSCRIPT_FORMAT),
  version: z.number().int().positive(),
  createdAt: z.string(),
  provider: z.string().optional(),
  model: z.string().optional(),
  systemPrompt: z.string().optional(),
  servers: z.array(z.string()).max(10_000).optional(),
});

const ContentPartSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("image"), data: z.string(), mimeType: z.string() }),
  z.object({ type: z.literal("audio"), data: z.string(), mimeType: z.string() }),
  z.object({ type: z.literal("document"), data: z.string(), mimeType: z.string(), name: z.string().optional() }),
]);
const ContentSchema = z.union([z.string(), z.array(ContentPartSchema)]);
const ReplyBlockSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("reasoning"), text: z.string(), signature: z.string() }),
  z.object({ type: z.literal("redacted-reasoning"), data: z.string() }),
  z.object({ type: z.literal("tool-call") }),
]);
const ToolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string(), signature: z.string().optional() });

export const MessageSchema: z.ZodType<Message> = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: ContentSchema }),
  z.object({ role: z.literal("assistant"), content: z.string(), toolCalls: z.array(ToolCallSchema).optional(), reasoning: z.string().optional(), blocks: z.array(ReplyBlockSchema).optional() }),
  z.object({ role: z.literal("tool"), toolCallId: z.string(), name: z.string(), content: ContentSchema, isError: z.boolean().optional() }),
]);

export function serializeTranscript(messages: readonly Message[], meta: Omit<Partial<TranscriptHeader>, "format" | "version"> = {}): string {
  const header: TranscriptHeader = { format: TRANSCRIPT_FORMAT, version: TRANSCRIPT_VERSION, createdAt: meta.createdAt ?? new Date().toISOString() };
  if (meta.provider) header.provider = meta.provider;
  if (meta.model) header.model = meta.model;
  if (meta.systemPrompt) header.systemPrompt = meta.systemPrompt;
  if (meta.servers) header.servers = [...meta.servers];
  return [header, ...messages].map((line) => JSON.stringify(line)).join("\n") + "\n";
}

/** `source` names the transcript in errors (a file path, usually). */
export function parseTranscript(text: string, source = "transcript"): Transcript {
  const lines = text.split("\n");
  let header: TranscriptHeader | undefined;
  const messages: Message[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    const where = `${source}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new TranscriptError(`${where}: not a JSON line (${error instanceof Error ? error.message : String(error)})`);
    }
    if (header === undefined) {
      const parsed = HeaderSchema.safeParse(value);
      if (!parsed.success) throw new TranscriptError(`${where}: not a toolbridge transcript (the first line must be {"format":"${TRANSCRIPT_FORMAT}","version":${TRANSCRIPT_VERSION},...})`);
      if (parsed.data.version > TRANSCRIPT_VERSION) {
        throw new TranscriptError(`${where}: transcript version ${parsed.data.version} is newer than this toolbridge reads (${TRANSCRIPT_VERSION}); upgrade toolbridge`);
      }
      header = parsed.data as TranscriptHeader;
      return;
    }
    const parsed = MessageSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
      throw new TranscriptError(`${where}: not a message${path}: ${issue?.message ?? "invalid"}`);
    }
    messages.push(parsed.data);
  });
  if (header === undefined) throw new TranscriptError(`${source}: empty transcript`);
  return { header, messages };
}

/**
 * Written 0600, an existing file included: a conversation is the user's alone. A symbolic
 * link at `path` is never followed (the write fails with ELOOP); with `overwrite: false` an
 * existing file is left alone (EEXIST).
 */
export async function saveTranscript(
  path: string,
  messages: readonly Message[],
  meta: Omit<Partial<TranscriptHeader>, "format" | "version"> = {},
  { overwrite = true }: { overwrite?: boolean } = {},
): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (overwrite ? constants.O_TRUNC : constants.O_EXCL);
  const file = await open(path, flags, 0o600);
  try {
    // The mode given to open() applies only to a file it creates.
    await file.chmod(0o600);
    await file.writeFile(serializeTranscript(messages, meta), "utf8");
  } finally {
    await file.close();
  }
}

export async function loadTranscript(path: string): Promise<Transcript> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new TranscriptError(`${path}: ${code === "ENOENT" ? "no such file" : error instanceof Error ? error.message : String(error)}`);
  }
  return parseTranscript(text, path);
}
