import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { chat, CLI, home, timeOnly, useChatTerminal, vllm } from "../../support/chat-terminal.js";
import { runCli } from "../../support/cli.js";

useChatTerminal();

/** A first conversation, with the time and math servers, in which the model called math's `add`; then the chat quits. */
async function conversationWithMath(): Promise<void> {
  const config = join(home, "time-and-math.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        time: { command: process.execPath, args: [CLI, "serve", "time"], trust: true },
        math: { command: process.execPath, args: [CLI, "serve", "math"], trust: true },
      },
    }),
  );
  const s = await vllm([{ toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] }, { text: "It is 5." }]);
  const t = await chat(s, config);
  await t.waitFor(/● server math: \d+ tools/, "the math server");
  await t.type("what is 2 + 3?");
  await t.press("Enter");
  await t.waitFor(/It is 5\./, "the answer");
  await t.press("C-d");
  await t.exitCode();
  await t.close();
}

const CHANGES = "since this conversation was saved: servers missing: math · tools it called that are not offered now: add";

it("a conversation resumed where its servers are not configured says which are missing and which tools it called are gone", async () => {
  await conversationWithMath();
  const t = await chat(await vllm([]), timeOnly, ["--continue"]);
  await t.waitFor(/resumed [\w-]+: 4 messages/, "the resumed conversation");
  // The line wraps at the terminal's width.
  const unwrapped = (screen: string): string => screen.replace(/\s+/g, " ");
  const seen = await t.waitFor((screen) => unwrapped(screen).includes(CHANGES), "the line naming what changed");
  expect(unwrapped(seen).split(CHANGES)).toHaveLength(2);
});

it("a piped chat resuming it says the same on stderr", async () => {
  await conversationWithMath();
  const s = await vllm([{ text: "Still here." }]);
  const run = await runCli(["chat", "--continue", "--config", timeOnly, "--base-url", s.url], { cwd: home, input: "hello\n", env: { XDG_STATE_HOME: join(home, "state") } });
  expect(run.stdout).toContain("Still here.");
  expect(run.stderr).toContain(CHANGES);
  expect(run.code).toBe(0);
});
