import { spawn, type ChildProcess } from "node:child_process";
import type { Writable } from "node:stream";

/**
 * A process killed outright (SIGKILL, the OOM killer) runs no handler, and servers in
 * process groups of their own would outlive it. Linux's PR_SET_PDEATHSIG needs native code
 * and reaches only the direct child, not what it started; so a tiny `sh` watches instead.
 * It is told each server's process group and reads its stdin, a pipe only this process
 * holds: when that pipe ends, however this process ended, it signals the groups left
 * (SIGTERM, then SIGKILL a second later) and exits. It runs in a session of its own, out of
 * reach of the terminal's signals, and exits as soon as there is nothing left to watch.
 */
const SCRIPT = `
groups=" "
forget() { kept=" "; for g in $groups; do [ "$g" = "$1" ] || kept="$kept$g "; done; groups=$kept; }
while read -r line; do
  case "$line" in
    +*) groups="$groups\${line#+} " ;;
    -*) forget "\${line#-}" ;;
  esac
done
[ "$groups" = " " ] && exit 0
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
sleep 1
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
`;

let watchdog: { child: ChildProcess; stdin: Writable } | undefined;
const watched = new Set<number>();

/** Hands a server's process group to the watchdog (started on first use). */
export function watchProcessGroup(pgid: number): void {
  if (process.platform === "win32") return;
  watched.add(pgid);
  const dog = (watchdog ??= start());
  dog?.stdin.write(`+${pgid}\n`);
}

/** The group is gone: the watchdog forgets it; when it watches nothing it exits, and this settles then. */
export function forgetProcessGroup(pgid: number): Promise<void> {
  if (!watched.delete(pgid) || !watchdog) return Promise.resolve();
  const { child, stdin } = watchdog;
  stdin.write(`-${pgid}\n`);
  if (watched.size > 0) return Promise.resolve();
  watchdog = undefined;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  // Waited for, so that toolbridge never exits before its watchdog.
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.ref();
  stdin.end();
  return exited;
}

function start(): { child: ChildProcess; stdin: Writable } | undefined {
  let child: ChildProcess;
  try {
    child = spawn("/bin/sh", ["-c", SCRIPT], { detached: true, stdio: ["pipe", "ignore", "ignore"], env: {} });
  } catch {
    return undefined; // no /bin/sh: servers still end with close() and the exit handler
  }
  const stdin = child.stdin as Writable & { unref?: () => void };
  child.on("error", () => {
    if (watchdog?.child === child) watchdog = undefined;
  });
  stdin.on("error", () => undefined);
  // Neither the watchdog nor its pipe keeps this process alive.
  child.unref();
  stdin.unref?.();
  return { child, stdin };
}
