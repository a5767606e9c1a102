import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TranscriptError } from "../../src/agent/errors.js";
import { loadTranscript, parseTranscript, saveTranscript, serializeTranscript } from "../../src/agent/transcript.js";
import type { Message } from "../../src/llm/types.js";

const messages: Message[] = [
  { role: "user", content: "What's the date?" },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "get-date", arguments: '{"format":"date-only"}' }], reasoning: "use the tool" },
  { role: "tool", toolCallId: "c1", name: "get-date", content: [{ type: "text", text: "1/7/2026" }, { type: "image", data: "AAAA", mimeType: "image/png" }] },
  { role: "tool", toolCallId: "c2", name: "get-date", content: "bad", isError: true },
  { role: "assistant", content: "It is 7 January 2026." },
];

describe("transcripts", () => {
  it("saves a transcript readable by the user alone, an existing file included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolbridge-transcript-"));
    try {
      const fresh = join(dir, "new.jsonl");
      const existing = join(dir, "old.jsonl");
      writeFileSync(existing, "", { mode: 0o644 });
      for (const file of [fresh, existing]) {
        await saveTranscript(file, messages);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        expect((await loadTranscript(file)).messages).toEqual(messages);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("writes a versioned header line and one message per line, and reads them back unchanged", () => {
    const text = serializeTranscript(messages, { model: "qwen", createdAt: "2026-01-07T00:00:00.000Z" });
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(messages.length + 1);
    expect(JSON.parse(lines[0] ?? "")).toEqual({ format: "toolbridge-transcript", version: 1, createdAt: "2026-01-07T00:00:00.000Z", model: "qwen" });
    expect(parseTranscript(text).messages).toEqual(messages);
  });

  it("refuses a file that is not a transcript, naming the file and line", () => {
    expect(() => parseTranscript('{"role":"user","content":"hi"}\n', "chat.jsonl")).toThrow(/^chat\.jsonl:1: not a toolbridge transcript/);
  });

  it("refuses a transcript from a newer version", () => {
    expect(() => parseTranscript('{"format":"toolbridge-transcript","version":99,"createdAt":"x"}\n', "new.jsonl")).toThrow(/new\.jsonl:1: transcript version 99 is newer/);
  });

  it("names the line of a message that does not fit", () => {
    const text = `${serializeTranscript([])}{"role":"tool","content":"x"}\n`;
    expect(() => parseTranscript(text, "t.jsonl")).toThrow(TranscriptError);
    expect(() => parseTranscript(text, "t.jsonl")).toThrow(/^t\.jsonl:2: not a message at toolCallId/);
  });
});
