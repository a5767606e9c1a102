import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { chat, CLI, home, useChatTerminal, vllm } from "../../support/chat-terminal.js";
import { childPids, isAlive } from "../../support/processes.js";
import { recordedEvents } from "../../mcp/processes.js";

const SILENT = fileURLToPath(new URL("../../fixtures/servers/records-its-end.mjs", import.meta.url));

useChatTerminal();

it("quitting with Ctrl-C while a server starts says stopping… and ends it without waiting for its start-up", async () => {
  const log = join(mkdtempSync(join(home, "silent-")), "events");
  const config = join(home, "silent.json");
  // Two minutes to start: a chat that waited for it (or for the SDK's version probe) would outlast the test's bounds.
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        time: { command: process.execPath, args: [CLI, "serve", "time"], trust: true },
        silent: { command: process.execPath, args: [SILENT, log], startupTimeoutMs: 120_000 },
      },
    }),
  );
  const t = await chat(await vllm([]), config);
  await t.waitFor(/● server time: 1 tool/, "the time server's line");
  await t.until(() => recordedEvents(log).includes("request server/discover"), "the silent server to be asked");
  const servers = childPids(await t.pid());
  await t.press("C-c");
  await t.waitFor(/Press Ctrl-C again to quit/, "the quit hint");
  await t.press("C-c");
  await t.waitFor(/^stopping…$/m, "the stop");
  expect(await t.exitCode()).toBe(0);
  await t.until(() => !servers.some(isAlive), "the servers to end");
  expect(recordedEvents(log)).toEqual(["started", "request server/discover", "SIGTERM"]);
});
