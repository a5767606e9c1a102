import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { chat, CLI, home, SHELL_READ, useChatTerminal, vllm } from "../../support/chat-terminal.js";

const STUBBORN = fileURLToPath(new URL("../../fixtures/servers/ignores-sigterm.mjs", import.meta.url));

useChatTerminal();

it("what is typed after the quit key, while the servers close, reaches the shell whole", async () => {
  // A server that ignores the end of its stdin and SIGTERM holds the chat open for its grace
  // periods after Ctrl-D: the window in which the person already types their next command.
  const config = join(home, "stubborn.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        time: { command: process.execPath, args: [CLI, "serve", "time"], trust: true },
        stubborn: { command: process.execPath, args: [STUBBORN], trust: true },
      },
    }),
  );
  const t = await chat(await vllm([]), config, [], 100, { shellAfter: true });
  await t.waitFor(/stubborn/, "the stubborn server's start-up");
  await t.press("C-d");
  // Typed once the chat has taken the quit key (its hint line gone): keys that arrive in the
  // same read as the quit key are the chat's, and lost with it.
  await t.waitFor((screen) => !screen.includes("Enter sends"), "the chat to take the quit key");
  await t.type("ls -la /tmp");
  await t.press("Enter");
  const seen = await t.waitFor(SHELL_READ, "the shell to read the line typed after quitting");
  expect(SHELL_READ.exec(seen)?.[1]).toBe("ls -la /tmp");
});
