import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Hub } from "../../src/mcp/hub.js";
import { RecentLogs } from "../../src/mcp/recent-logs.js";
import { EVERYTHING, expectNoChildren } from "./processes.js";

/** The hub keeps each server's last log lines, bounded, from the moment it connects. */

const dir = mkdtempSync(join(tmpdir(), "toolbridge-recent-logs-"));

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await expectNoChildren();
});

describe("recent log lines", () => {
  it("keeps a bounded number of bounded lines per server", () => {
    const logs = new RecentLogs();
    for (let i = 0; i < 120; i++) logs.add("noisy", `line ${i}\n${"x".repeat(i === 119 ? 5000 : 0)}`);
    const kept = logs.of("noisy");
    expect(kept).toHaveLength(50);
    expect(kept[0]).toBe("line 70 ");
    expect(kept.at(-1)?.length).toBe(501);
  });

  it("keeps what a server logged while it connected, before anyone asked (server-everything, given its roots)", async () => {
    const hub = await Hub.connect({ everything: { command: process.execPath, args: [EVERYTHING, "stdio"], logLevel: "info" } }, { roots: [dir], stderrLogFile: join(dir, "servers.log") });
    try {
      await expect.poll(() => hub.recentLog("everything"), { timeout: 15_000 }).toContain("info everything-server: Roots updated: 1 root(s) received from client");
      expect(hub.recentLog("nobody")).toEqual([]);
    } finally {
      await hub.close();
    }
  });
});
