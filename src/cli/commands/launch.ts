import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { constants } from "node:os";
import { Argument, type Command } from "commander";
import type { AgentFlags } from "../chat/session.js";
import { hasPerl, PERL } from "../../mcp/transport/group-spawn.js";
import { action, UsageError } from "../errors.js";
import { findOnPath, LAUNCH_RECIPES, type LaunchClient } from "../launch-clients.js";
import { startGatewayCommand } from "./gateway.js";
import { ROOT_OPTION } from "./hub-commands.js";

export function registerLaunch(program: Command): void {
  program
    .command("launch")
    .description("run Claude Code or Codex on the model, through a gateway of its own (loopback, one-time key) that adds the MCP servers' tools; what follows -- goes to the tool")
    .addArgument(new Argument("<tool>", "claude or codex").choices(Object.keys(LAUNCH_RECIPES)))
    .argument("[args...]", "the tool's own arguments, after --")
    .option("-c, --config <file>", "the config file (default: ./toolbridge.json, then the user config)")
    .option("--base-url <url>", "the model server's OpenAI-compatible base URL")
    .option("--model <name>", "the model the tool uses (default: the config's, or the first the server lists)")
    .option("--provider <name>", "openai-compatible, vllm, ollama, openai, anthropic, gemini or local")
    .option("--tool-mode <mode>", "native, prompt or auto (native, prompt when refused)")
    .option("--max-iterations <n>", "rounds of MCP tool calls per request before the model must answer")
    .option("--approve <mode>", "which MCP tools run: ask (trusted servers and listed tools only), readonly, all (default: gateway.approve, else ask)")
    .option(...ROOT_OPTION)
    .action(action((tool: LaunchClient, args: string[], flags: AgentFlags) => launch(tool, args, flags)));
}

async function launch(client: LaunchClient, args: string[], flags: AgentFlags): Promise<void> {
  const recipe = LAUNCH_RECIPES[client];
  // Looked for first, so that a missing tool costs no server start.
  const binary = findOnPath(recipe.command, process.env.PATH);
  if (binary === undefined) throw new UsageError(recipe.missing);
  // The terminal sends Ctrl-C to the tool as well: the tool decides what it means. (While the servers start, it stops them.)
  const leaveToTool = () => undefined;
  process.on("SIGINT", leaveToTool);
  try {
    const apiKey = randomBytes(32).toString("base64url");
    // The tool owns the terminal: the gateway's request log would be drawn over its screen.
    const { silentLogger } = await import("../../gateway/log.js");
    const gateway = await startGatewayCommand(flags, { apiKey, leaveSigint: true, log: silentLogger });
    let code: number;
    try {
      const pointed = recipe.point({ url: gateway.url, apiKey, model: gateway.model });
      code = gateway.signal.aborted ? (gateway.interruptedWith() ?? 1) : await runInForeground(binary, [...pointed.args, ...args], { ...process.env, ...pointed.env }, gateway.signal);
    } finally {
      await gateway.close();
    }
    process.exitCode = code;
  } finally {
    process.off("SIGINT", leaveToTool);
  }
}

/**
 * Runs the tool on this terminal (stdin, stdout, stderr its own) and settles with its exit code
 * (128 + the signal's number when a signal ended it, as a shell reports it).
 */
function runInForeground(binary: string, args: string[], env: NodeJS.ProcessEnv, stop: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const [command, commandArgs] = endingWithUs(binary, args);
    const child = spawn(command, commandArgs, { stdio: "inherit", env });
    // toolbridge was asked to stop (SIGTERM, SIGHUP): so is the tool, and the gateway serves it until it has.
    const onStop = () => child.kill("SIGTERM");
    // toolbridge exits first all the same (a second signal): the tool does not outlive it.
    const onExit = () => child.kill("SIGKILL");
    stop.addEventListener("abort", onStop, { once: true });
    process.on("exit", onExit);
    const settled = () => {
      stop.removeEventListener("abort", onStop);
      process.off("exit", onExit);
    };
    child.once("error", (error) => {
      settled();
      reject(error);
    });
    child.once("exit", (code, signal) => {
      settled();
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}

/** Linux's prctl system call, per architecture (x86-64, arm64). */
const PRCTL: Partial<Record<string, number>> = { x64: 157, arm64: 167 };

/**
 * Killed outright (SIGKILL, the OOM killer), toolbridge runs no handler, and the tool would go on without its
 * gateway. Where Linux allows it, perl asks the kernel to send the tool SIGTERM when toolbridge dies
 * (prctl PR_SET_PDEATHSIG, kept across exec), gives up if toolbridge is already gone, then execs the tool in place:
 * same pid, terminal and process group. Elsewhere, the tool is started as it is.
 */
function endingWithUs(binary: string, args: string[]): [string, string[]] {
  const prctl = process.platform === "linux" ? PRCTL[process.arch] : undefined;
  if (prctl === undefined || !hasPerl()) return [binary, args];
  const script = `syscall(${prctl}, 1, 15); getppid() == ${process.pid} or exit 143; exec { $ARGV[0] } @ARGV; print STDERR "toolbridge: cannot run $ARGV[0]: $!\\n"; exit 127`;
  return [PERL, ["-e", script, "--", binary, ...args]];
}
