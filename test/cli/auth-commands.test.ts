// `toolbridge auth login|logout|status` and the "needs login" of `servers`, through the built CLI,
// against the OAuth-protected MCP server of the tests; the browser is a script that follows the redirect.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestAuthServer, TestResourceServer } from "../support/oauth-server.js";

const CLI = join(resolve(__dirname, "..", ".."), "dist", "cli", "main.js");

let work: string;
let auth: TestAuthServer;
let resource: TestResourceServer;
const outputs: string[] = [];

function cliEnv(browser = "browser.mjs"): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "", HOME: work, XDG_CONFIG_HOME: join(work, "config"), BROWSER: `${process.execPath} ${join(work, browser)}` };
}

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = cliEnv();
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args, "--config", join(work, "toolbridge.json")], { cwd: work, env, timeout: 60_000 }, (error, stdout, stderr) => {
      outputs.push(stdout, stderr);
      done({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "toolbridge-auth-cli-"));
  auth = await new TestAuthServer().start();
  resource = await new TestResourceServer(auth).start();
  writeFileSync(join(work, "toolbridge.json"), JSON.stringify({ mcpServers: { protected: { url: resource.url } } }));
  writeFileSync(join(work, "browser.mjs"), "await (await fetch(process.argv[2])).text();\n");
});

afterAll(async () => {
  await resource.stop();
  await auth.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("toolbridge auth", () => {
  it("shows a server waiting on a login as 'needs login', and a command without a terminal says how to log in", async () => {
    const servers = await cli("servers");
    expect(servers.stdout).toMatch(/protected\s+streamable-http\s+needs login/);
    const call = await cli("call", "whoami");
    expect(call.code).toBe(1);
    expect(call.stderr).toContain('server "protected" needs login: run toolbridge auth login protected');
  });

  it("never opens a browser from a listing command, even on a terminal: it names auth login", async () => {
    // A "browser" that only leaves a mark: the listing must never start it.
    writeFileSync(join(work, "marking-browser.mjs"), `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(join(work, "browser-opened"))}, process.argv[2]);\n`);
    const command = [process.execPath, CLI, "tools", "--config", join(work, "toolbridge.json")].map((arg) => `'${arg}'`).join(" ");
    const screen = await new Promise<string>((done, fail) => {
      // `script` gives the command a terminal of its own, where the login used to start unasked.
      const child = spawn("script", ["-qefc", command, "/dev/null"], { cwd: work, env: cliEnv("marking-browser.mjs"), stdio: ["pipe", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      child.on("error", fail);
      child.on("close", () => {
        clearTimeout(timer);
        done(out);
      });
    });
    outputs.push(screen);
    expect(screen).toContain('server "protected" needs login: run toolbridge auth login protected');
    expect(existsSync(join(work, "browser-opened"))).toBe(false);
    expect(auth.authorizeRequests).toHaveLength(0);
  });

  it("logs in through the browser, keeps the tokens in a 0600 file, and the server then connects", async () => {
    const login = await cli("auth", "login", "protected");
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/log in to server "protected" in your browser; if none opens, visit http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    // The whole URL, for a remote shell's user to paste: its query is theirs, not masked.
    const shown = /visit (\S+)/.exec(login.stderr)?.[1] ?? "";
    expect(shown).not.toContain("***");
    expect(new URL(shown).searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(new URL(shown).searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(login.stderr).toContain("protected: logged in");

    const dir = join(work, "config", "toolbridge", "oauth");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir);
    expect(files.map((file) => statSync(join(dir, file)).mode & 0o777)).toEqual([0o600]);

    const call = await cli("call", "whoami");
    expect(call.stdout.trim()).toBe("client-1 with scope read");
  });

  it("reports the login without its token, then forgets it on logout", async () => {
    const status = await cli("auth", "status", "--json");
    expect(JSON.parse(status.stdout)).toEqual([
      expect.objectContaining({ server: "protected", url: resource.url, login: "logged in", scope: "read", issuer: auth.url }),
    ]);
    expect((await cli("auth", "status")).stdout).toMatch(/protected\s+logged in/);

    expect((await cli("auth", "logout", "protected")).stderr).toBe("protected: logged out\n");
    expect((await cli("auth", "status")).stdout).toMatch(/protected\s+not logged in/);
    expect((await cli("servers")).stdout).toMatch(/needs login/);
  });

  it("refuses a server that is not a remote one in the config", async () => {
    const run = await cli("auth", "login", "nowhere");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('server "nowhere" is not in the config');
  });

  it("never printed a token", () => {
    expect(auth.allTokens().length).toBeGreaterThan(0);
    const printed = outputs.join("\n");
    for (const token of auth.allTokens()) expect(printed).not.toContain(token);
  });
});
