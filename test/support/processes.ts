/** TEST INFRASTRUCTURE: asking after processes, for the "no child left behind" checks. */
import { execFileSync } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes whose parent is `parent` (this test process by default); the `ps` asking is left out. */
export function childPids(parent: number = process.pid): number[] {
  let out = "";
  try {
    out = execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(parent)], { encoding: "utf8" });
  } catch {
    return []; // ps exits 1 when nothing matches
  }
  return out
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, comm]) => pid && comm !== "ps")
    .map(([pid]) => Number(pid));
}

/** Processes (of anyone) whose working directory is `dir`: a server still running there after the CLI exits is an orphan. */
export function processesIn(dir: string): number[] {
  if (process.platform !== "linux") return [];
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === dir) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}
