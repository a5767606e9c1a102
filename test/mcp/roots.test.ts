import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import { RootList, toRoot, toRoots } from "../../src/mcp/roots.js";

describe("roots", () => {
  it("makes a directory a file: URI named for its last part, relative ones against cwd", () => {
    expect(toRoot("src", "/home/ada/site")).toEqual({ uri: "file:///home/ada/site/src", name: "src" });
    expect(toRoot("/srv/data dir", "/x")).toEqual({ uri: "file:///srv/data%20dir", name: "data dir" });
    expect(toRoot("file:///srv/data", "/x")).toEqual({ uri: "file:///srv/data", name: "data" });
  });

  it("refuses what is not a local directory", () => {
    expect(() => toRoot("https://example.com/", "/x")).toThrow('root "https://example.com/" is not a directory or a file: URI');
  });

  it("drops duplicates, keeping the order", () => {
    expect(toRoots(["/a", "/b", "/a/", "file:///b"], "/").map((root) => root.uri)).toEqual(["file:///a", "file:///b"]);
  });

  it("tells only the servers that follow the shared list, and only on a change", () => {
    const list = new RootList([toRoot("/a", "/")], new Map([["own", [toRoot("/own", "/")]]]));
    expect(list.replace([toRoot("/a", "/")], ["own", "shared"])).toEqual([]);
    expect(list.replace([toRoot("/b", "/")], ["own", "shared"])).toEqual(["shared"]);
    expect(list.for("own").map((root) => root.uri)).toEqual(["file:///own"]);
    expect(list.for("shared").map((root) => root.uri)).toEqual(["file:///b"]);
  });

  it("expands ${VAR} in a server's roots", () => {
    const config = parseConfig(JSON.stringify({ mcpServers: { fs: { command: "x", roots: ["${HOME}/projects"] } } }), { env: { HOME: "/home/ada" } });
    expect(config.mcpServers.fs?.roots).toEqual(["/home/ada/projects"]);
  });

  it("a config root that is a web URL is a config error naming the key", () => {
    expect(() => parseConfig(JSON.stringify({ roots: ["https://example.com"] }), { file: "t.json", env: {} })).toThrow(/t\.json: roots\[0\]: .*directory or a file: URI/);
  });
});
