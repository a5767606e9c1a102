import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import picocolors from "picocolors";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentSession } from "../../../src/cli/chat/session.js";
import type { SlashContext } from "../../../src/cli/chat/slash-context.js";
import { runSlashCommand } from "../../../src/cli/chat/slash-commands.js";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "toolbridge-save-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `/save FILE` over a session holding one exchange; what it printed, and the questions it asked. */
async function save(file: string, answer?: boolean) {
  const printed: string[] = [];
  const asked: string[] = [];
  const session = { agent: { messages: [{ role: "user", content: "hello" }, { role: "assistant", content: "hi" }], model: { provider: "openai", modelId: "m" } } } as unknown as AgentSession;
  const context: SlashContext = { session, colors: picocolors.createColors(false), print: (text) => printed.push(text), columns: 80 };
  if (answer !== undefined) context.confirm = async (question) => (asked.push(question), answer);
  await runSlashCommand(`/save ${file}`, context);
  return { printed: printed.join("\n"), asked };
}

describe("/save", () => {
  it("writes a new file, private to the user", async () => {
    const file = join(dir, "new.jsonl");
    const { printed, asked } = await save(file, true);
    expect(printed).toContain("saved 2 messages");
    expect(asked).toEqual([]);
    expect(readFileSync(file, "utf8")).toContain('"hello"');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("never follows a symbolic link, even to a file the person would let it replace", async () => {
    const target = join(dir, "precious.txt");
    writeFileSync(target, "keep me");
    const link = join(dir, "link.jsonl");
    symlinkSync(target, link);
    const { printed, asked } = await save(link, true);
    expect(printed).toMatch(/link\.jsonl is a symbolic link; \/save does not follow links/);
    expect(asked).toEqual([]);
    expect(readFileSync(target, "utf8")).toBe("keep me");
  });

  it("asks before replacing an existing file, and keeps it on no", async () => {
    const file = join(dir, "old.jsonl");
    writeFileSync(file, "old");
    const no = await save(file, false);
    expect(no.asked).toEqual([`${file} exists. Replace it with this conversation?`]);
    expect(no.printed).toContain("exists; not replaced: name another file");
    expect(readFileSync(file, "utf8")).toBe("old");
    const yes = await save(file, true);
    expect(yes.printed).toContain("saved 2 messages");
    expect(readFileSync(file, "utf8")).toContain('"hello"');
  });

  it("never replaces a file where nobody can be asked (piped chat)", async () => {
    const file = join(dir, "old.jsonl");
    writeFileSync(file, "old");
    const { printed } = await save(file);
    expect(printed).toContain("exists; not replaced (nobody to ask here): name another file");
    expect(readFileSync(file, "utf8")).toBe("old");
    expect(existsSync(file)).toBe(true);
  });
});
