import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";

/** `toolbridge mcp add|list|remove`: the server list without editing JSON. */

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-mcp-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[]) => runCli(args, { cwd: dir, home: dir });
const bundledNote = (run: { stderr: string }): boolean => run.stderr.includes("bundled time and math");

describe("toolbridge mcp", () => {
  it("adds a stdio server to a new user config (0600), then a remote one, lists and removes them", async () => {
    const file = join(dir, "toolbridge", "config.json");
    const added = await cli(["mcp", "add", "fs", "-e", "LOG=debug", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain(`created ${file}: added server "fs"`);
    // The bundled servers were the servers until now: the first file written does not hold them, and says so.
    expect(added.stderr).toContain(`the bundled time and math servers, used while there was no config, are not in ${file}: \`toolbridge mcp add time -- toolbridge serve time\` (and math) keeps them`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      mcpServers: { fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], env: { LOG: "debug" } } },
    });
    expect(bundledNote(await cli(["mcp", "add", "later", "--", "x"]))).toBe(false);
    await cli(["mcp", "remove", "later"]);
    const remote = await cli(["mcp", "add", "remote", "--url", "https://mcp.example.com/mcp", "-H", "Authorization: Bearer ${TOKEN:-none}"]);
    expect(remote.code, remote.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.remote).toEqual({ url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${TOKEN:-none}" } });
    const listed = await cli(["mcp", "list"]);
    expect(listed.stdout).toMatch(/^fs\s+stdio\s+npx -y @modelcontextprotocol\/server-filesystem \/tmp\s+enabled$/m);
    expect(listed.stdout).toMatch(/^remote\s+http\s+https:\/\/mcp\.example\.com\/mcp/m);
    const removed = await cli(["mcp", "remove", "fs"]);
    expect(removed.code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).mcpServers)).toEqual(["remote"]);
  }, 60_000);

  it("keeps the file's other content and indentation, and refuses to clobber a name without --force", async () => {
    const file = join(dir, "project.json");
    writeFileSync(file, `{\n    "llm": { "model": "m" },\n    "mcpServers": {\n        "a": { "command": "x" }\n    }\n}\n`);
    const again = await cli(["mcp", "add", "a", "-c", file, "--", "y"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('a server named "a" is already configured: use --force');
    expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.a).toEqual({ command: "x" });
    const forced = await cli(["mcp", "add", "a", "-c", file, "--force", "--", "y"]);
    expect(forced.code, forced.stderr).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text).toContain('\n    "llm": {\n        "model": "m"\n    },');
    expect(JSON.parse(text).mcpServers.a).toEqual({ command: "y" });
  }, 60_000);

  it("says what is missing in one line: no command, an unknown server, a misspelt subcommand", async () => {
    const none = await cli(["mcp", "add", "x", "-c", join(dir, "other.json")]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("give the command that starts the server after --");
    const unknown = await cli(["mcp", "remove", "nope", "-c", join(dir, "project.json")]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no server named "nope"');
    const typo = await cli(["mcp", "ad", "x"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr.trim()).toBe("toolbridge: unknown command 'ad' (did you mean add?) (see `toolbridge mcp --help`)");
    const command = await cli(["tols"]);
    expect(command.stderr.trim()).toBe("toolbridge: unknown command 'tols' (did you mean tools?) (see `toolbridge --help`)");
  }, 60_000);
});
