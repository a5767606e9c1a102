import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI_ENTRY } from "../../src/config/bundled-servers.js";
import { ConfigError } from "../../src/config/errors.js";
import { loadConfig } from "../../src/config/load.js";
import { userConfigFile } from "../../src/config/locate.js";

let root: string;
let cwd: string;
let home: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "toolbridge-config-"));
  cwd = join(root, "project");
  home = join(root, "home");
  mkdirSync(cwd);
  mkdirSync(home);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, data: unknown): string {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, typeof data === "string" ? data : JSON.stringify(data));
  return file;
}

const oneServer = (command: string) => ({ mcpServers: { only: { command } } });

describe("finding the config file", () => {
  it("reads --config relative to the working directory", () => {
    const file = write(join(cwd, "conf", "mine.json"), oneServer("from-flag"));
    const loaded = loadConfig({ file: "conf/mine.json", cwd, env: { HOME: home } });
    expect(loaded.path).toBe(file);
    expect(loaded.config.mcpServers).toEqual({ only: { command: "from-flag" } });
  });

  it("prefers --config over ./toolbridge.json and the user's config", () => {
    write(join(cwd, "toolbridge.json"), oneServer("project"));
    write(join(home, ".config", "toolbridge", "config.json"), oneServer("user"));
    const file = write(join(root, "flag.json"), oneServer("flag"));
    expect(loadConfig({ file, cwd, env: { HOME: home } }).config.mcpServers.only).toEqual({ command: "flag" });
  });

  it("reports a --config file that does not exist instead of falling back", () => {
    write(join(cwd, "toolbridge.json"), oneServer("project"));
    expect(() => loadConfig({ file: "missing.json", cwd, env: { HOME: home } })).toThrow(`${join(cwd, "missing.json")}: no such file`);
  });

  it("reports a --config path that is a directory", () => {
    expect(() => loadConfig({ file: ".", cwd, env: { HOME: home } })).toThrow(`${cwd}: is a directory, not a config file`);
  });

  it("refuses /dev/zero in one line instead of reading it for ever", () => {
    expect(() => loadConfig({ file: "/dev/zero", cwd, env: { HOME: home } })).toThrow(
      "/dev/zero: is a character device, not a regular file",
    );
  });

  it("refuses a FIFO without blocking on it", () => {
    const fifo = join(root, "config.fifo");
    execFileSync("mkfifo", [fifo]);
    // No writer ever opens the FIFO: a blocking open or read would hang this test.
    expect(() => loadConfig({ file: fifo, cwd, env: { HOME: home } })).toThrow(`${fifo}: is a named pipe (FIFO), not a regular file`);
  });

  it("refuses a config file over 1 MiB before reading it", () => {
    const file = join(root, "huge.json");
    writeFileSync(file, "");
    truncateSync(file, 2 * 1024 * 1024 * 1024);
    expect(() => loadConfig({ file, cwd, env: { HOME: home } })).toThrow(
      `${file}: is 2048 MiB, more than a config file may be (1 MiB)`,
    );
  });

  it("reads a config of exactly 1 MiB", () => {
    const text = JSON.stringify(oneServer("padded"));
    const file = write(join(root, "padded.json"), text + " ".repeat(1024 * 1024 - text.length));
    expect(loadConfig({ file, cwd, env: { HOME: home } }).config.mcpServers.only).toEqual({ command: "padded" });
  });

  it("uses ./toolbridge.json before the user's config", () => {
    const file = write(join(cwd, "toolbridge.json"), oneServer("project"));
    write(join(home, ".config", "toolbridge", "config.json"), oneServer("user"));
    const loaded = loadConfig({ cwd, env: { HOME: home } });
    expect(loaded.path).toBe(file);
    expect(loaded.config.mcpServers.only).toEqual({ command: "project" });
  });

  it("falls back to ~/.config/toolbridge/config.json", () => {
    const file = write(join(home, ".config", "toolbridge", "config.json"), oneServer("user"));
    expect(loadConfig({ cwd, env: { HOME: home } }).path).toBe(file);
  });

  it("honours XDG_CONFIG_HOME", () => {
    const xdg = join(root, "xdg");
    const file = write(join(xdg, "toolbridge", "config.json"), oneServer("xdg"));
    write(join(home, ".config", "toolbridge", "config.json"), oneServer("user"));
    expect(loadConfig({ cwd, env: { HOME: home, XDG_CONFIG_HOME: xdg } }).path).toBe(file);
  });

  it("ignores a relative XDG_CONFIG_HOME, as the XDG spec says", () => {
    expect(userConfigFile({ HOME: home, XDG_CONFIG_HOME: "relative" }, "linux")).toBe(join(home, ".config", "toolbridge", "config.json"));
  });

  it("uses %APPDATA% on Windows", () => {
    expect(userConfigFile({ APPDATA: join(root, "AppData"), USERPROFILE: home }, "win32")).toBe(join(root, "AppData", "toolbridge", "config.json"));
  });

  it("lets the caller name the user's config directory", () => {
    const dir = join(root, "custom");
    const file = write(join(dir, "config.json"), oneServer("custom"));
    expect(loadConfig({ cwd, env: { HOME: home }, configDir: dir }).path).toBe(file);
  });

  it("connects the bundled time and math servers when there is no config file", () => {
    const loaded = loadConfig({ cwd, env: { HOME: home } });
    expect(loaded.path).toBeUndefined();
    expect(loaded.config.mcpServers).toEqual({
      time: { command: process.execPath, args: [CLI_ENTRY, "serve", "time"], trust: true },
      math: { command: process.execPath, args: [CLI_ENTRY, "serve", "math"], trust: true },
    });
    expect(CLI_ENTRY).toBe(join(__dirname, "..", "..", "dist", "cli", "main.js"));
  });

  it("uses the bundled servers for a config without mcpServers, and none for an empty mcpServers", () => {
    write(join(cwd, "toolbridge.json"), { llm: { model: "m" } });
    expect(Object.keys(loadConfig({ cwd, env: {} }).config.mcpServers)).toEqual(["time", "math"]);
    write(join(cwd, "toolbridge.json"), { mcpServers: {} });
    expect(loadConfig({ cwd, env: {} }).config.mcpServers).toEqual({});
  });

  it("throws a ConfigError that names the file", () => {
    const file = write(join(cwd, "toolbridge.json"), "{");
    try {
      loadConfig({ cwd, env: {} });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).file).toBe(file);
    }
  });
});
