import { fork, type ChildProcess } from "node:child_process";

/**
 * A bench worker: this same file run again in a child process (under tsx) with `flag name`, talking
 * over IPC. `next()` waits for the worker's next message, and fails if the worker exits first.
 */
export function forkWorker(file: string, flag: string, name: string): { child: ChildProcess; next: <T>() => Promise<T> } {
  const child = fork(file, [flag, name], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const next = <T>(): Promise<T> =>
    new Promise((resolve, reject) => {
      const onExit = () => reject(new Error(`${name}: its process exited`));
      child.once("exit", onExit);
      child.once("message", (message) => {
        child.off("exit", onExit);
        resolve(message as T);
      });
    });
  return { child, next };
}
