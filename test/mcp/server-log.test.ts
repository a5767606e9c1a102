import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultStderrLogFile, ServerLog } from "../../src/mcp/server-log.js";

const dir = mkdtempSync(join(tmpdir(), "toolbridge-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => join(dir, `case-${n++}`);

describe("the servers' log", () => {
  it("lives in the user's state directory, private to the user", async () => {
    const state = fresh();
    const file = defaultStderrLogFile({ XDG_STATE_HOME: state });
    expect(file).toBe(join(state, "toolbridge", "servers.log"));
    const log = new ServerLog(file);
    log.write("time", "hello");
    await log.close();
    expect(statSync(join(state, "toolbridge")).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("tells toolbridge processes apart by pid, and servers by name", async () => {
    const file = join(fresh(), "servers.log");
    const log = new ServerLog(file);
    log.write("math", "ready");
    await log.close();
    expect(readFileSync(file, "utf8")).toMatch(new RegExp(`^\\S+ pid ${process.pid} \\[math\\] ready\\n$`));
  });

  it("does not follow a symlink planted where the log goes", async () => {
    const base = fresh();
    mkdirSync(base, { mode: 0o700 });
    const victim = join(base, "victim");
    writeFileSync(victim, "precious\n");
    symlinkSync(victim, join(base, "servers.log"));
    const log = new ServerLog(join(base, "servers.log"));
    log.write("evil", "token=secret");
    await log.close();
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
  });

  it("does not write into a directory that is a planted symlink", async () => {
    const base = fresh();
    const elsewhere = join(base, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    symlinkSync(elsewhere, join(base, "toolbridge"));
    const log = new ServerLog(join(base, "toolbridge", "servers.log"));
    log.write("evil", "token=secret");
    await log.close();
    expect(existsSync(join(elsewhere, "servers.log"))).toBe(false);
  });

  it("writes nothing when the state directory above it is writable by other users (a world-writable $XDG_STATE_HOME)", async () => {
    const state = fresh();
    mkdirSync(state);
    chmodSync(state, 0o777);
    const file = defaultStderrLogFile({ XDG_STATE_HOME: state });
    const log = new ServerLog(file);
    log.write("evil", "token=secret");
    await log.close();
    expect(existsSync(join(state, "toolbridge"))).toBe(false);
  });

  it("makes an existing world-readable log private", async () => {
    const base = fresh();
    mkdirSync(base, { mode: 0o700 });
    const file = join(base, "servers.log");
    writeFileSync(file, "", { mode: 0o644 });
    const log = new ServerLog(file);
    log.write("a", "line");
    await log.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("rotates by size, so a flood keeps at most two files of the limit", async () => {
    const file = join(fresh(), "servers.log");
    const log = new ServerLog(file, 4096);
    for (let i = 0; i < 1000; i++) log.write("flood", `line ${i} ${"x".repeat(50)}`);
    await log.close();
    expect(statSync(file).size).toBeLessThanOrEqual(4096);
    expect(statSync(`${file}.1`).size).toBeLessThanOrEqual(4096);
    expect(statSync(`${file}.1`).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toContain("line 999 ");
  });

  it("cuts a line that would fill the file alone", async () => {
    const file = join(fresh(), "servers.log");
    const log = new ServerLog(file);
    log.write("flood", "y".repeat(100_000));
    await log.close();
    expect(statSync(file).size).toBeLessThan(10_000);
    expect(readFileSync(file, "utf8")).toContain("more characters)");
  });
});
