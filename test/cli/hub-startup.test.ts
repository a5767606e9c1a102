import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { bundledServer } from "../../src/config/bundled-servers.js";
import { CLI, runCli } from "../support/cli.js";
import { processesIn } from "../support/processes.js";
import { Tmux } from "../support/tmux.js";

const HANG = fileURLToPath(new URL("../fixtures/servers/hang-on-initialize.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "toolbridge-hub-startup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A config with the bundled time server and `slow`, which never answers initialize (and notes that it started). */
function configWithSlowServer(name: string): { file: string; started: string } {
  const started = join(dir, `${name}.started`);
  const file = join(dir, `${name}.json`);
  const slow = { command: "/bin/sh", args: ["-c", `touch ${started}; exec ${process.execPath} ${HANG}`], startupTimeoutMs: 600_000 };
  writeFileSync(file, JSON.stringify({ mcpServers: { time: bundledServer("time"), slow } }));
  return { file, started };
}

describe("hub commands while servers start", () => {
  it("call with server__tool starts that server alone", async () => {
    const { file, started } = configWithSlowServer("qualified");
    const run = await runCli(["call", "time__get-date", "--config", file], { cwd: dir });
    expect(run.stdout).toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(run.code).toBe(0);
    expect(existsSync(started)).toBe(false);
    expect(processesIn(dir)).toEqual([]);
  });

  it("tools shows on a terminal which servers are still starting", async () => {
    const { file } = configWithSlowServer("tty");
    const term = await Tmux.start([process.execPath, CLI, "tools", "--config", file], { cwd: dir, env: { HOME: dir, PATH: process.env.PATH, NO_COLOR: "1" } });
    try {
      // Wait for the whole status line: tmux may be read while the line is half drawn.
      const screen = await term.waitFor(/servers: time [✓…]  slow …/);
      expect(screen).toMatch(/servers: time [✓…]  slow …/);
      await term.press("C-c");
      expect(await term.exitCode()).toBe(130);
    } finally {
      await term.close();
    }
  });
});
