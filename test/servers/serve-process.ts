// Runs `toolbridge serve` from the build as a real child process and connects the official SDK client to it.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { isAlive } from "../support/processes.js";

export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
}

export type Mode = "stdio" | "http";


export interface Connected {
  client: Client;
  /** The serving process. */
  pid: number;
  /** Closes the client and ends the serving process; resolves once it is gone. */
  close(): Promise<void>;
}

export interface HttpServe {
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** Sends the signal and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

/** Starts `toolbridge serve NAME --http 127.0.0.1:0` and reads the URL it prints on stderr. */
export async function startHttpServe(name: string, extraArgs: string[] = []): Promise<HttpServe> {
  requireBuild();
  const child = spawn(process.execPath, [CLI, "serve", name, "--http", "127.0.0.1:0", ...extraArgs], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed within 15 s; stderr: ${stderr}`)), 15_000);
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
  if (stdout !== "") throw new Error(`serve --http wrote to stdout: ${stdout}`);
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async (signal = "SIGTERM") => {
      const done = exited(child);
      child.kill(signal);
      return done;
    },
  };
}

const clientInfo = { name: "toolbridge-test", version: "0.0.0" };

export async function connectStdio(name: string): Promise<Connected> {
  requireBuild();
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", name], stderr: "pipe" });
  const client = new Client(clientInfo);
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error("stdio server has no pid");
  return {
    client,
    pid,
    close: async () => {
      await client.close();
      // The SDK's close ends the child, but the exit can land a moment later.
      for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 20));
    },
  };
}

export async function connectHttpClient(url: string): Promise<Client> {
  const client = new Client(clientInfo);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Either transport, behind the same shape, so a suite can run once per mode. */
export async function connect(name: string, mode: Mode): Promise<Connected> {
  if (mode === "stdio") return connectStdio(name);
  const served = await startHttpServe(name);
  const client = await connectHttpClient(served.url);
  const pid = served.child.pid as number;
  return {
    client,
    pid,
    close: async () => {
      await client.close();
      await served.stop();
    },
  };
}
