import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Agent } from "../../agent/agent.js";
import { parseTranscript, serializeTranscript, type Transcript, type TranscriptHeader } from "../../agent/transcript.js";
import type { Message } from "../../llm/types.js";
import { stateDir } from "../../host/state-dir.js";

/** `20261122-170305`: a time for file names (UTC), sortable. */
export function fileStamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
}

/** Sessions listed for --resume; older ones stay on disk. */
const MAX_LISTED = 20;

/** `chat --continue` (the last conversation) or `--resume [ID]` (that one, or a picker on a terminal). */
export interface ResumeChoice {
  continueLast?: boolean;
  resume?: string | true;
}

export interface SavedSession {
  id: string;
  modifiedAt: Date;
  /** The first user message, for the picker. */
  title: string;
  messages: number;
}

/**
 * Every chat saved as it goes, one transcript per conversation in `<state dir>/sessions`
 * (0700), each file 0600, written whole to a temporary file and renamed, so a crash never
 * leaves half a transcript.
 */
export class SavedSessions {
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /** A new id: the time, sortable, and a random tail. */
  static newId(now = new Date()): string {
    return `${fileStamp(now)}-${Math.random().toString(36).slice(2, 6)}`;
  }

  /** The agent's conversation as session `id`, with the servers configured; a failure is swallowed (the conversation goes on, unsaved). */
  saveConversation(id: string, agent: Agent, servers: readonly string[]): void {
    if (agent.messages.length === 0) return;
    try {
      this.save(id, agent.messages, { provider: agent.model.provider, model: agent.model.modelId, servers: [...servers], ...(agent.systemPrompt ? { systemPrompt: agent.systemPrompt } : {}) });
    } catch {
      // Not saved; the conversation goes on.
    }
  }

  save(id: string, messages: readonly Message[], meta: Omit<Partial<TranscriptHeader>, "format" | "version">): void {
    const file = this.file(id);
    const temporary = `${file}.tmp`;
    writeFileSync(temporary, serializeTranscript(messages, meta), { mode: 0o600 });
    renameSync(temporary, file);
  }

  load(id: string): Transcript {
    const file = this.file(id);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      throw new Error(`no saved session "${id}" (chat --resume lists them)`);
    }
    return parseTranscript(text, file);
  }

  /** The most recent first. */
  list(): SavedSession[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((name) => name.endsWith(".jsonl"));
    } catch {
      return [];
    }
    const dated = names.map((name) => ({ name, modifiedAt: statSync(join(this.dir, name)).mtime })).sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime());
    const sessions: SavedSession[] = [];
    for (const { name, modifiedAt } of dated.slice(0, MAX_LISTED)) {
      try {
        const transcript = parseTranscript(readFileSync(join(this.dir, name), "utf8"), name);
        const first = transcript.messages.find((message) => message.role === "user");
        const title = typeof first?.content === "string" ? first.content : "(no message)";
        sessions.push({ id: name.slice(0, -".jsonl".length), modifiedAt, title: title.replace(/\s+/g, " ").slice(0, 80), messages: transcript.messages.length });
      } catch {
        // A damaged file is not offered.
      }
    }
    return sessions;
  }

  private file(id: string): string {
    if (!/^[\w.-]+$/.test(id)) throw new Error(`"${id}" is not a session id`);
    return join(this.dir, `${id}.jsonl`);
  }
}

/** The saved sessions in the state directory; undefined when it cannot be made (no home, read-only). */
export function openSavedSessions(env: Readonly<Record<string, string | undefined>>): SavedSessions | undefined {
  try {
    return new SavedSessions(join(stateDir(env), "sessions"));
  } catch {
    return undefined;
  }
}
