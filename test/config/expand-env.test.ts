import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";

const FILE = "/etc/toolbridge.json";
const parse = (data: unknown, env: Record<string, string | undefined>) => parseConfig(JSON.stringify(data), { file: FILE, env });

describe("${VAR} expansion", () => {
  it("expands in command, args, env, url and headers", () => {
    const config = parse(
      {
        mcpServers: {
          local: { command: "${BIN}/server", args: ["--root", "${ROOT}", "x${ROOT}y"], env: { TOKEN: "${TOKEN}" } },
          remote: { url: "${BASE}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        },
      },
      { BIN: "/opt/bin", ROOT: "/srv", TOKEN: "s3cret", BASE: "http://127.0.0.1:3001" },
    );
    expect(config.mcpServers.local).toEqual({ command: "/opt/bin/server", args: ["--root", "/srv", "x/srvy"], env: { TOKEN: "s3cret" } });
    expect(config.mcpServers.remote).toEqual({ url: "http://127.0.0.1:3001/mcp", headers: { Authorization: "Bearer s3cret" } });
  });

  it("expands cwd like the other fields of a server", () => {
    const config = parse({ mcpServers: { a: { command: "x", cwd: "${WORK:-/srv}/repo" } } }, { WORK: "/home/me" });
    expect(config.mcpServers.a).toMatchObject({ cwd: "/home/me/repo" });
  });

  it("expands references in a default: ${UNSET:-${Y}}", () => {
    const data = { mcpServers: { a: { command: "x", args: ["${UNSET:-${Y}}", "${UNSET:-${ALSO_UNSET:-deep}}/x", "${SET:-${Y}}", "${UNSET:-a}b}"] } } };
    expect(parse(data, { Y: "why", SET: "set" }).mcpServers.a).toMatchObject({ args: ["why", "deep/x", "set", "ab}"] });
  });

  it("does not expand anywhere else", () => {
    const config = parse({ mcpServers: { a: { command: "x", note: "${HOME}" } }, llm: { systemPrompt: "${HOME}" } }, { HOME: "/root" });
    expect(config.mcpServers.a).toMatchObject({ note: "${HOME}" });
    expect(config.llm?.systemPrompt).toBe("${HOME}");
  });

  it("uses the default of ${VAR:-default} when the variable is unset or empty, as the shell does", () => {
    const data = { mcpServers: { a: { command: "x", args: ["${PORT:-8080}", "${HOST:-127.0.0.1}", "${EMPTY:-fallback}"] } } };
    expect(parse(data, { HOST: "0.0.0.0", EMPTY: "" }).mcpServers.a).toMatchObject({ args: ["8080", "0.0.0.0", "fallback"] });
  });

  it("allows an empty default", () => {
    expect(parse({ mcpServers: { a: { command: "x", args: ["${NOPE:-}"] } } }, {}).mcpServers.a).toMatchObject({ args: [""] });
  });

  it("keeps a variable that is set but empty when there is no default", () => {
    expect(parse({ mcpServers: { a: { command: "x", env: { A: "${EMPTY}" } } } }, { EMPTY: "" }).mcpServers.a).toMatchObject({ env: { A: "" } });
  });

  it("names the file, the JSON path and the variable when a variable is not set", () => {
    expect(() => parse({ mcpServers: { github: { command: "x", env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" } } } }, {})).toThrow(
      `${FILE}: mcpServers.github.env.GITHUB_TOKEN: environment variable GITHUB_TOKEN is not set (write \${GITHUB_TOKEN:-default} to give a default)`,
    );
    expect(() => parse({ mcpServers: { a: { command: "x", args: ["ok", "${MISSING}"] } } }, {})).toThrow(`${FILE}: mcpServers.a.args[1]: environment variable MISSING is not set`);
  });

  it("reads only the environment it is given", () => {
    process.env.TOOLBRIDGE_TEST_ONLY_IN_PROCESS = "leak";
    try {
      expect(() => parse({ mcpServers: { a: { command: "${TOOLBRIDGE_TEST_ONLY_IN_PROCESS}" } } }, {})).toThrow("TOOLBRIDGE_TEST_ONLY_IN_PROCESS is not set");
    } finally {
      delete process.env.TOOLBRIDGE_TEST_ONLY_IN_PROCESS;
    }
  });

  it("writes $${ for a literal ${, and leaves what is not a reference alone", () => {
    const config = parse({ mcpServers: { a: { command: "sh", args: ["-c", "echo $${HOME} ${1} $HOME ${arr[0]}"] } } }, { HOME: "/root" });
    expect(config.mcpServers.a).toMatchObject({ args: ["-c", "echo ${HOME} ${1} $HOME ${arr[0]}"] });
  });

  it("does not fail on unset variables of a disabled server", () => {
    const config = parse({ mcpServers: { off: { command: "x", disabled: true, env: { KEY: "${UNSET_KEY}" } } } }, {});
    expect(config.mcpServers.off).toMatchObject({ disabled: true, env: { KEY: "${UNSET_KEY}" } });
  });

  it("validates the url after expansion", () => {
    expect(() => parse({ mcpServers: { a: { url: "${BASE}/mcp" } } }, { BASE: "nonsense" })).toThrow(`${FILE}: mcpServers.a.url: not a valid http(s) or ws(s) URL: "nonsense/mcp"`);
  });
});
