import { existsSync, readdirSync, readFileSync } from "node:fs";

/** Whether this kernel lists each thread's children (/proc/PID/task/TID/children, CONFIG_PROC_CHILDREN). */
let childrenFiles: boolean | undefined;

/**
 * Descendants of a process that left its process group (a grandchild that called `setsid`
 * or `setpgid`): signalling the group misses them. Linux only, read from /proc; elsewhere,
 * and for one whose parent already exited (it then belongs to init), nothing is found.
 * The tree is walked down from the leader through its threads' children files, where the
 * kernel has them: a few reads per server closed, where reading every process's stat took
 * one read per process on the machine.
 */
export function straysOutsideGroup(leader: number): number[] {
  if (process.platform !== "linux") return [];
  childrenFiles ??= existsSync(`/proc/self/task/${process.pid}/children`);
  const childrenOf = childrenFiles ? childrenFromTasks : everyProcessByParent();
  const strays: number[] = [];
  const queue = [leader];
  for (let parent = queue.pop(); parent !== undefined; parent = queue.pop()) {
    for (const child of childrenOf(parent)) {
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

interface Stat {
  pid: number;
  ppid: number;
  pgid: number;
}

/** The children of `parent`, from the children file of each of its threads (a process that is gone has none). */
function childrenFromTasks(parent: number): Stat[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${parent}/task`);
  } catch {
    return [];
  }
  const children: Stat[] = [];
  for (const task of tasks) {
    let listed: string;
    try {
      listed = readFileSync(`/proc/${parent}/task/${task}/children`, "utf8");
    } catch {
      continue; // the thread ended meanwhile
    }
    for (const pid of listed.split(" ")) {
      const stat = pid === "" ? undefined : readStat(pid);
      if (stat) children.push(stat);
    }
  }
  return children;
}

/** Without children files: every process's stat, read once, as children by parent. */
function everyProcessByParent(): (parent: number) => Stat[] {
  const children = new Map<number, Stat[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    entries = [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (!stat) continue;
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push(stat);
    else children.set(stat.ppid, [stat]);
  }
  return (parent) => children.get(parent) ?? [];
}

function readStat(pid: string): Stat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ")".
    const [, ppid, pgid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid) };
  } catch {
    return undefined;
  }
}
