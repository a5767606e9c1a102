/**
 * TEST INFRASTRUCTURE ONLY: runs the built `toolbridge` CLI as a user would, with its
 * own HOME and no colour, and gathers what it printed.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

export const CLI = join(import.meta.dirname, "../../dist/cli/main.js");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  /** HOME and XDG_CONFIG_HOME (default: cwd). */
  home?: string;
  /** Written to stdin, which is then closed (default: nothing). */
  input?: string;
  env?: Record<string, string>;
  /** Sends SIGINT once this returns true for what was printed so far (checked on each output). */
  interruptWhen?: (sofar: CliRun) => boolean;
  /** The command's entry file (default: the build's, CLI). */
  entry?: string;
}

export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: home, NO_COLOR: "1", ...extra };
  for (const name of ["OPENAI_BASE_URL", "OPENAI_API_KEY", "FORCE_COLOR", "TOOLBRIDGE_DEBUG"]) if (!(name in extra)) delete env[name];
  return env;
}

export function runCli(args: string[], options: CliOptions): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.entry ?? CLI, ...args], { cwd: options.cwd, env: cliEnv(options.home ?? options.cwd, options.env), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let interrupted = false;
    const check = (): void => {
      if (interrupted || !options.interruptWhen?.({ code: null, stdout, stderr })) return;
      interrupted = true;
      child.kill("SIGINT");
    };
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      check();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      check();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input ?? "");
  });
}
