import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { startHarness, type Harness } from "./harness.js";

/**
 * Codex CLI with a custom provider (`wire_api = "responses"`) pointed at the gateway. Codex is
 * a 170 MB binary, so it is not a dependency of the project: it is pinned in test/codex (which
 * CI installs with `npm ci --prefix test/codex`), and TOOLBRIDGE_CODEX may name another binary.
 * Where neither is there (Linux x64 only), this is skipped.
 */
const PINNED = fileURLToPath(new URL("../codex/node_modules/codex/vendor/x86_64-unknown-linux-musl/bin/codex", import.meta.url));
const CODEX = process.env.TOOLBRIDGE_CODEX ?? PINNED;

let harness: Harness | undefined;
let home: string | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  if (home) rmSync(home, { recursive: true, force: true });
});

describe.skipIf(!existsSync(CODEX))("Codex CLI", () => {
  it("answers through the gateway, the MCP tool run inside, its hosted tools left out", async () => {
    harness = await startHarness({ replies: [{ toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] }, { text: "It is 7 January 2026." }] });
    home = mkdtempSync(join(tmpdir(), "toolbridge-codex-"));
    writeFileSync(join(home, "config.toml"), `model = "${DEFAULT_VLLM_MODEL}"\nmodel_provider = "toolbridge"\n[model_providers.toolbridge]\nname = "toolbridge"\nbase_url = "${harness.baseURL}"\nwire_api = "responses"\n`);
    const child = spawn(CODEX as string, ["exec", "--skip-git-repo-check", "What is the date today?"], { env: { ...process.env, CODEX_HOME: home, HOME: home }, cwd: home, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    const code = await new Promise((resolve) => child.once("exit", resolve));
    clearTimeout(timer);
    expect(code).toBe(0);
    expect(out.trim()).toBe("It is 7 January 2026.");
    const offered = harness.upstream.chatRequests[0]?.body.tools.map((tool: { function: { name: string } }) => tool.function.name);
    expect(offered).toContain("get-date");
    expect(offered).toContain("exec_command");
  }, 120_000);
});
