import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InputHistory, MAX_HISTORY_ENTRIES } from "../../../src/cli/ui/history.js";
import { stateDir } from "../../../src/host/state-dir.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const tempDir = (): string => (dir = mkdtempSync(join(tmpdir(), "toolbridge-history-")));

describe("the input history", () => {
  it("keeps multi-line entries across loads, in a file only the user can read", () => {
    const file = join(tempDir(), "history");
    const history = InputHistory.load(file);
    history.add("one\ntwo");
    history.add("three");
    history.add("three");
    expect(InputHistory.load(file).all).toEqual(["one\ntwo", "three"]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("stays bounded, and skips damaged lines", () => {
    const file = join(tempDir(), "history");
    writeFileSync(file, Array.from({ length: MAX_HISTORY_ENTRIES + 500 }, (_, i) => JSON.stringify(`m${i}`)).join("\n") + "\n{broken\n");
    const history = InputHistory.load(file);
    expect(history.all).toHaveLength(MAX_HISTORY_ENTRIES);
    expect(history.all.at(-1)).toBe(`m${MAX_HISTORY_ENTRIES + 499}`);
    history.add("new");
    expect(readFileSync(file, "utf8").trim().split("\n").length).toBeLessThanOrEqual(MAX_HISTORY_ENTRIES + 1);
  });

  it("lives in $XDG_STATE_HOME/toolbridge, made private", () => {
    const base = tempDir();
    const state = stateDir({ XDG_STATE_HOME: base });
    expect(state).toBe(join(base, "toolbridge"));
    expect(statSync(state).mode & 0o777).toBe(0o700);
    expect(stateDir({ HOME: base })).toBe(join(base, ".local", "state", "toolbridge"));
  });
});
