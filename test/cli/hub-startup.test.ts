import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
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

type Kind = "time" | "math" | "hang" | "fail";

/**
 * A server entry that runs `normally`, or `marked` once mark() was called, the entry in the
 * config staying the same (as a server that updated itself, or a network that got slow);
 * `started` is created each time it starts.
 */
function changingServer(name: string, normally: Kind, marked: Kind): { config: object; started: string; mark: () => void } {
  const started = join(dir, `${name}.started`);
  const marker = join(dir, `${name}.marked`);
  const run = (kind: Kind) => (kind === "fail" ? "exit 1" : kind === "hang" ? `${process.execPath} ${HANG}` : `${process.execPath} ${CLI} serve ${kind}`);
  const script = `touch ${started}; if [ -e ${marker} ]; then exec ${run(marked)}; else exec ${run(normally)}; fi`;
  return { config: { command: "/bin/sh", args: ["-c", script], startupTimeoutMs: 600_000 }, started, mark: () => writeFileSync(marker, "") };
}

function writeConfig(name: string, servers: Record<string, object>): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
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

  it("call with a plain name starts only the servers last seen offering it: one that now hangs on initialize is not waited for", async () => {
    const slow = changingServer("plain-slow", "math", "hang");
    const file = writeConfig("plain", { time: bundledServer("time"), slow: slow.config });
    const env = { XDG_STATE_HOME: join(dir, "plain-state") };
    // Every server seen once, fast; then `slow` hangs on initialize.
    expect((await runCli(["tools", "--config", file], { cwd: dir, env })).stdout).toContain("add");
    slow.mark();
    rmSync(slow.started);
    const run = await runCli(["call", "get-date", "--config", file], { cwd: dir, env });
    expect(run.stdout).toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(run.code).toBe(0);
    expect(existsSync(slow.started)).toBe(false);
    expect(processesIn(dir)).toEqual([]);
    // What was seen is kept where only the user can read it.
    expect(statSync(join(dir, "plain-state", "toolbridge", "tool-owners.json")).mode & 0o777).toBe(0o600);
  });

  it("call with a plain name two servers were last seen offering is ambiguous, as with every server up", async () => {
    const slow = changingServer("ambiguous-slow", "math", "hang");
    const file = writeConfig("ambiguous", { time: bundledServer("time"), clock: bundledServer("time"), slow: slow.config });
    await runCli(["tools", "--config", file], { cwd: dir });
    slow.mark();
    rmSync(slow.started);
    const run = await runCli(["call", "get-date", "--config", file], { cwd: dir });
    expect(run.stderr).toContain('ambiguous: "get-date" is offered by 2 servers; call one of time__get-date, clock__get-date');
    expect(run.code).not.toBe(0);
    expect(existsSync(slow.started)).toBe(false);
  });

  it("call with a plain name does not wait for a server that failed to start last time", async () => {
    const broken = changingServer("failing", "fail", "hang");
    const file = writeConfig("failing", { time: bundledServer("time"), broken: broken.config });
    const env = { XDG_STATE_HOME: join(dir, "failing-state") };
    expect((await runCli(["tools", "--config", file], { cwd: dir, env })).stderr).toContain('server "broken" failed to start');
    // Now it hangs on initialize, with ten minutes to start: waited for, the call would not end before runCli's bound.
    broken.mark();
    rmSync(broken.started);
    const run = await runCli(["call", "get-date", "--config", file], { cwd: dir, env });
    expect(run.stdout).toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(run.code).toBe(0);
    // Started again (it may be up by now), it was ended with the call.
    expect(processesIn(dir)).toEqual([]);
  }, 120_000);

  it("call starts every server when those last seen offering a plain name no longer do", async () => {
    // `first` offered get-date and now offers math's tools; `second` the other way round.
    const first = changingServer("moved-first", "time", "math");
    const second = changingServer("moved-second", "math", "time");
    const file = writeConfig("moved", { first: first.config, second: second.config });
    await runCli(["tools", "--config", file], { cwd: dir });
    first.mark();
    second.mark();
    const run = await runCli(["call", "get-date", "--config", file], { cwd: dir });
    expect(run.stdout).toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(run.code).toBe(0);
    // And what was seen is remembered: the next call starts only `second`.
    rmSync(first.started);
    expect((await runCli(["call", "get-date", "--config", file], { cwd: dir })).code).toBe(0);
    expect(existsSync(first.started)).toBe(false);
  });

  it.each([
    ["tools", []],
    ["servers", []],
    ["call", ["get-date"]],
  ])("%s shows on a terminal which servers are still starting", async (command, args) => {
    const { file } = configWithSlowServer(`tty-${command}`);
    const term = await Tmux.start([process.execPath, CLI, command, ...args, "--config", file], { cwd: dir, env: { HOME: dir, PATH: process.env.PATH, NO_COLOR: "1" } });
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
