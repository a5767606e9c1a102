import { readdirSync, readFileSync } from "node:fs";

/**
 * Descendants of a process that left its process group (a grandchild that called `setsid`
 * or `setpgid`): signalling the group misses them. Linux only, read from /proc; elsewhere,
 * and for one whose parent already exited (it then belongs to init), nothing is found.
 */
export function straysOutsideGroup(leader: number): number[] {
  if (process.platform !== "linux") return [];
  const children = new Map<number, { pid: number; pgid: number }[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (!stat) continue;
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push(stat);
    else children.set(stat.ppid, [stat]);
  }
  const strays: number[] = [];
  const queue = [leader];
  for (let parent = queue.pop(); parent !== undefined; parent = queue.pop()) {
    for (const child of children.get(parent) ?? []) {
      if (child.pgid !== leader) strays.push(child.pid);
      queue.push(child.pid);
    }
  }
  return strays;
}

/** Signals each pid that is still there (0: only asks whether it is); true when any was. */
export function signalStrays(pids: readonly number[], signal: NodeJS.Signals | 0): boolean {
  let any = false;
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
      any = true;
    } catch {
      // gone already
    }
  }
  return any;
}

function readStat(pid: string): { pid: number; ppid: number; pgid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ")".
    const [, ppid, pgid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid) };
  } catch {
    return undefined;
  }
}
