import type { ChildProcess } from "node:child_process";
import { PassThrough } from "node:stream";
import type { Transport, JSONRPCMessage } from "@modelcontextprotocol/client";
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { spawnInGroup } from "./group-spawn.js";
import { idFromEdges, JsonLineSplitter, mebibytes, type OversizeLine } from "./json-lines.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../limits.js";
import { forgetProcessGroup, watchProcessGroup } from "./orphan-watchdog.js";
import { ProtocolErrorCode, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { signalStrays, straysOutsideGroup } from "./strays.js";
import { withTimeout } from "../time-limit.js";

export interface StdioServerParameters {
  command: string;
  args?: string[];
  /** Added to the SDK's short list of safe variables (PATH, HOME, ...); nothing else of ours is passed. */
  env?: Record<string, string>;
  cwd?: string;
  /** Default DEFAULT_MAX_MESSAGE_BYTES. */
  maxMessageBytes?: number;
  /** How long close() waits after closing stdin, again after SIGTERM, and for the pipes to end once the group is gone. Default 2000 ms. */
  graceMs?: number;
}

const DEFAULT_GRACE_MS = 2000;
const POSIX = process.platform !== "win32";

/**
 * The MCP stdio transport, with the server in a process group of its own: closing the
 * server signals the group, so what it started (`sh -c`, `npx`, a `sleep` in the
 * background, a browser) ends with it. Newline-delimited JSON-RPC on stdin/stdout; a
 * message longer than `maxMessageBytes` fails the request it answers, not the server.
 */
export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server's stderr, available before start() so nothing early is lost. */
  readonly stderr = new PassThrough();
  /** Why the transport closed, when it was not asked to: for the error the user reads. */
  closeReason: string | undefined;

  private child: ChildProcess | undefined;
  private closed = false;
  private exited: Promise<void> = Promise.resolve();
  /** Settles when the server has exited and its pipes have ended ('close'). */
  private pipesEnded: Promise<void> = Promise.resolve();
  private ending: Promise<void> | undefined;
  /** Descendants outside the group, found before the server is asked to exit (after, they belong to init). */
  private strays: number[] = [];
  /** Settles when stdin drains, for every write waiting on it (see whenDrained). */
  private drained: Promise<void> | undefined;
  private readonly splitter: JsonLineSplitter;
  private readonly maxMessageBytes: number;
  private readonly graceMs: number;

  constructor(private readonly server: StdioServerParameters) {
    this.maxMessageBytes = server.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.graceMs = server.graceMs ?? DEFAULT_GRACE_MS;
    this.splitter = new JsonLineSplitter(
      this.maxMessageBytes,
      (line) => this.receive(line),
      (line) => this.refuse(line),
    );
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the server's process ended ("exit 1", "SIGKILL"), once it has. */
  get exit(): string | undefined {
    const child = this.child;
    if (child?.signalCode) return child.signalCode;
    return child?.exitCode !== null && child?.exitCode !== undefined ? `exit ${child.exitCode}` : undefined;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("ProcessGroupTransport already started");
    return new Promise((resolve, reject) => {
      const { child, started } = spawnInGroup(this.server.command, this.server.args ?? [], {
        env: { ...getDefaultEnvironment(), ...this.server.env },
        ...(this.server.cwd !== undefined ? { cwd: this.server.cwd } : {}),
      });
      this.child = child;
      // A command that could not be spawned never exits: nothing to wait for then.
      this.exited = new Promise((done) => {
        child.once("exit", () => done());
        child.once("error", () => done());
      });
      started.then(
        () => {
          // A server that exited before its launcher said it started has had its group forgotten already:
          // watching it now would leave the watchdog watching a group nobody forgets.
          if (POSIX && child.pid !== undefined && child.exitCode === null && child.signalCode === null) watchProcessGroup(child.pid);
          resolve();
        },
        (error: Error) => {
          reject(error);
          this.onerror?.(error);
          this.finish();
        },
      );
      this.pipesEnded = new Promise((done) => {
        child.once("close", () => done());
        child.once("error", () => done());
      });
      child.once("exit", () => {
        // What the server started may still hold the pipes open: the group goes with its leader.
        void this.endGroup(false).then(() => this.drainPipes()).then(() => this.finish());
      });
      child.once("close", () => this.finish());
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.splitter.push(chunk));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stderr?.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed || !stdin.writable) {
        // The SDK's own error for it, so a server that exited before a request was written reads as that.
        reject(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed"));
        return;
      }
      // Written at once, each message: corking until the next tick, so that the polls of tasks in step went out in one
      // write, cost every plain call more CPU than the writes it saved.
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else void this.whenDrained(stdin).then(resolve);
    });
  }

  /**
   * One wait for 'drain' that every write held back shares: a listener each would pile up past Node's
   * leak warning when a server that does not read its stdin is sent many messages (answers to a flood of
   * its own requests). A pipe that closes instead never drains; its writers are let go then.
   */
  private whenDrained(stdin: NodeJS.WritableStream): Promise<void> {
    this.drained ??= new Promise<void>((resolve) => {
      const done = (): void => {
        stdin.off("drain", done);
        stdin.off("close", done);
        this.drained = undefined;
        resolve();
      };
      stdin.once("drain", done);
      stdin.once("close", done);
    });
    return this.drained;
  }

  /** Closes stdin, then signals the group: SIGTERM after the grace, SIGKILL after another. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (child.pid !== undefined && !this.ending) this.strays = straysOutsideGroup(child.pid);
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    await withTimeout(this.exited, this.graceMs);
    await this.endGroup(true);
    await this.drainPipes();
    this.finish();
  }

  /** Signals the group now: SIGTERM, then SIGKILL after the grace (for a signal to toolbridge). */
  async terminate(): Promise<void> {
    if (!this.child) return;
    if (this.child.pid !== undefined && !this.ending) this.strays = straysOutsideGroup(this.child.pid);
    await this.endGroup(true);
    await this.drainPipes();
    this.finish();
  }

  /** SIGKILLs the group at once, for a process 'exit' handler where nothing asynchronous runs. */
  killSync(): void {
    const pid = this.child?.pid;
    // Before its launcher has set the group (start() not yet settled), the leader alone is there.
    if (pid !== undefined && !signalGroup(pid, "SIGKILL")) signalStrays([pid], "SIGKILL");
  }

  /** SIGTERM to the group, SIGKILL to whatever is left after the grace; once. */
  private endGroup(evenIfLeaderAlive: boolean): Promise<void> {
    const child = this.child;
    if (!child || (!evenIfLeaderAlive && child.exitCode === null && child.signalCode === null)) return Promise.resolve();
    this.ending ??= this.signalUntilGone(child);
    return this.ending;
  }

  private async signalUntilGone(child: ChildProcess): Promise<void> {
    const pid = child.pid;
    if (pid === undefined) return;
    const strays = this.strays;
    const stray = signalStrays(strays, "SIGTERM");
    if (!signalGroup(pid, "SIGTERM") && !stray) return await forgetProcessGroup(pid);
    const alive = (): boolean => groupAlive(pid, child) || signalStrays(strays, 0);
    const deadline = Date.now() + this.graceMs;
    while (alive() && Date.now() < deadline) await delay(25);
    if (groupAlive(pid, child)) signalGroup(pid, "SIGKILL");
    signalStrays(strays, "SIGKILL");
    await withTimeout(this.exited, this.graceMs);
    await forgetProcessGroup(pid);
  }

  /**
   * Once the group is gone, reads its stdout and stderr to their end: a server's exit can be heard before
   * what it wrote just before is read (its last reply, the stderr line that says why it failed), and
   * destroying the pipes then loses it. Bounded by the grace, for a process outside the group that holds them.
   */
  private async drainPipes(): Promise<void> {
    if (!this.closed) await withTimeout(this.pipesEnded, this.graceMs);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    const child = this.child;
    // A pipe held by a process that left the group must not keep the transport open.
    child?.stdout?.destroy();
    child?.stderr?.unpipe(this.stderr);
    child?.stderr?.destroy();
    this.stderr.end();
    this.splitter.clear();
    this.onclose?.();
  }

  /**
   * Only whether the line is a JSON-RPC 2.0 object: the client checks each message against the SDK's schemas before
   * it uses it (RawRequests the responses to its own requests), so parsing it here too validated every message once
   * more, a good part of what each request cost.
   */
  private receive(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    if (typeof message !== "object" || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== "2.0") {
      this.onerror?.(new SyntaxError(`not a JSON-RPC 2.0 message: ${line.slice(0, 40)}`));
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  /** A message over the limit: the request it answers fails with a clear error; the server lives on. */
  private refuse(line: OversizeLine): void {
    const text = `the reply of ${mebibytes(line.bytes)} exceeds the limit of ${mebibytes(this.maxMessageBytes)} (maxMessageBytes)`;
    const id = idFromEdges(line);
    if (id !== undefined) {
      const data = { fromTransport: true, bytes: line.bytes, maxMessageBytes: this.maxMessageBytes };
      this.onmessage?.({ jsonrpc: "2.0", id, error: { code: ProtocolErrorCode.InternalError, message: text, data } });
      return;
    }
    // Without an id no request can be failed alone: end the connection, saying why.
    this.closeReason = text;
    this.onerror?.(new Error(text));
    void this.close();
  }
}

/** Signals the process group (POSIX) or the process; false when nothing was there. */
function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(POSIX ? -pid : pid, signal);
    return true;
  } catch {
    return false;
  }
}

function groupAlive(pid: number, child: ChildProcess): boolean {
  if (!POSIX) return child.exitCode === null && child.signalCode === null;
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    // EPERM: a member we may not signal is still there (it changed user); count it as alive.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
