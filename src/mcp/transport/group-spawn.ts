import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants as fs } from "node:fs";
import { constants as os } from "node:os";
import type { Readable } from "node:stream";

export interface GroupSpawnOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface GroupSpawned {
  child: ChildProcess;
  /** Settles once the command runs in its own process group (pgid = child.pid), or with the error spawn gives. */
  started: Promise<void>;
}

/**
 * The launcher: takes a group of its own (setpgrp), then execs the command in place, so the server keeps the
 * pid and the group id is that pid. Why exec failures go through fd 3: it is close-on-exec, so it ends without a
 * byte once the command runs, and carries errno when it could not (ENOENT stays "command not found").
 * Why not `detached: true`: that is setsid(), and a new session is a scheduling group of its own under Linux's
 * autogroup; on a busy machine each round trip then waits for that group's turn: the p50 of a tools/call was
 * 2-3x that of a server in toolbridge's session. Node has no setpgid of its own, and perl is on macOS and on
 * every Debian, Ubuntu and Fedora base system.
 */
const LAUNCHER = "open(my $e, '>&=', 3) or exit 127; fcntl($e, 2, 1); setpgrp(0, 0); exec { $ARGV[0] } @ARGV; print $e 0 + $!; exit 127";
export const PERL = "/usr/bin/perl";

let perlFound: boolean | undefined;

/** Whether PERL is there to run (checked once). */
export function hasPerl(): boolean {
  if (perlFound === undefined) {
    try {
      accessSync(PERL, fs.X_OK);
      perlFound = true;
    } catch {
      perlFound = false;
    }
  }
  return perlFound;
}

/**
 * Spawns a command with piped stdin, stdout and stderr as the leader of a new process group (POSIX), in
 * toolbridge's session where perl is there to set the group, else in a session of its own (setsid).
 * Windows has no process groups: a plain spawn there.
 */
export function spawnInGroup(command: string, args: readonly string[], options: GroupSpawnOptions): GroupSpawned {
  const common = { env: options.env, ...(options.cwd !== undefined ? { cwd: options.cwd } : {}), windowsHide: true };
  if (process.platform === "win32" || !hasPerl()) {
    const child = spawn(command, args, { ...common, stdio: ["pipe", "pipe", "pipe"], detached: process.platform !== "win32" });
    return { child, started: spawned(child) };
  }
  const child = spawn(PERL, ["-e", LAUNCHER, "--", command, ...args], { ...common, stdio: ["pipe", "pipe", "pipe", "pipe"] });
  const execResult = child.stdio[3] as Readable;
  const started = spawned(child).then(
    () =>
      new Promise<void>((resolve, reject) => {
        let reported = "";
        execResult.setEncoding("utf8");
        execResult.on("data", (text: string) => (reported += text));
        execResult.on("error", () => undefined);
        execResult.once("close", () => {
          const errno = Number(reported);
          if (reported === "" || !Number.isInteger(errno)) return resolve();
          reject(spawnError(command, args, errno));
        });
      }),
  );
  return { child, started };
}

function spawned(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
}

/** The error Node's spawn gives for a command that cannot be run, for the errno the launcher's exec got. */
function spawnError(command: string, args: readonly string[], errno: number): NodeJS.ErrnoException {
  const code = Object.entries(os.errno).find(([, value]) => value === errno)?.[0] ?? "UNKNOWN";
  return Object.assign(new Error(`spawn ${command} ${code}`), { errno: -errno, code, syscall: `spawn ${command}`, path: command, spawnargs: [...args] });
}
