import { createInterface, type Interface } from "node:readline";
import { logInWhereAsked } from "../open-hub.js";
import { colorsFor } from "../render/colors.js";
import { TurnView } from "../render/turn-view.js";
import type { AgentSession } from "./session.js";
import { runSlashCommand } from "./slash-commands.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface ChatIo {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: Env;
}

/**
 * The chat loop. On a terminal: a prompt with history, streamed and rendered answers,
 * Ctrl-C cancelling the answer and not the program. Otherwise one message per input line,
 * answers on stdout, so a conversation can be scripted.
 */
export async function runChat(session: AgentSession, options: { verbose: boolean }, io: ChatIo): Promise<void> {
  const interactive = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const outColors = colorsFor(io.stdout, io.env);
  const errColors = colorsFor(io.stderr, io.env);
  const view = new TurnView({
    stdout: io.stdout,
    stderr: io.stderr,
    outColors,
    errColors,
    streamAnswer: true,
    markdown: interactive,
    showReasoning: interactive || options.verbose,
    verbose: options.verbose,
    endpoint: () => session.endpoint,
  });
  const rl = createInterface({ input: io.stdin, output: interactive ? io.stdout : undefined, terminal: interactive, historySize: 500 });
  let turn: AbortController | undefined;
  let exitArmed = false;

  const print = (text: string): void => {
    io.stdout.write(`${text}\n`);
  };
  // Ctrl-C: cancel the answer in progress; at a prompt, clear the line, or quit when pressed twice on an empty one.
  const onInterrupt = (): void => {
    if (turn) {
      turn.abort();
      return;
    }
    if (!interactive || exitArmed) {
      rl.close();
      return;
    }
    if (rl.line !== "") {
      rl.write(null, { ctrl: true, name: "u" });
      return;
    }
    exitArmed = true;
    io.stdout.write(`\n${outColors.dim("(Ctrl-C again to quit, or /exit)")}\n`);
    rl.prompt();
  };
  rl.on("SIGINT", onInterrupt);
  if (!interactive) process.on("SIGINT", onInterrupt);

  const handle = async (line: string): Promise<"exit" | void> => {
    const text = line.trim();
    if (text === "") return;
    if (text.startsWith("/")) {
      return runSlashCommand(text, { session, colors: outColors, print, columns: io.stdout.columns ?? 100 });
    }
    turn = new AbortController();
    try {
      await session.agent.send(text, { signal: turn.signal, onEvent: (event) => view.handle(event) });
    } finally {
      turn = undefined;
    }
    if (interactive) {
      io.stdout.write("\n");
      await logInWhereAsked(session.hub, io.env);
    }
  };

  try {
    if (interactive) {
      printBanner(session, io, outColors);
      for (;;) {
        const line = await question(rl, outColors.bold(outColors.cyan("› ")));
        if (line === undefined) break;
        exitArmed = false;
        if ((await handle(line)) === "exit") break;
      }
    } else {
      for await (const line of rl) if ((await handle(line)) === "exit") break;
    }
  } finally {
    if (!interactive) process.off("SIGINT", onInterrupt);
    rl.close();
  }
}

/** One line from the prompt; undefined when the input ends (Ctrl-D, or closed after Ctrl-C). */
function question(rl: Interface, prompt: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const onClose = (): void => resolve(undefined);
    rl.once("close", onClose);
    rl.question(prompt, (answer) => {
      rl.off("close", onClose);
      resolve(answer);
    });
  });
}

function printBanner(session: AgentSession, io: ChatIo, c: ReturnType<typeof colorsFor>): void {
  const servers = session.hub.servers();
  const connected = servers.filter((s) => s.status === "connected").length;
  const tools = session.agent.tools().length;
  io.stdout.write(
    `${c.bold("toolbridge chat")} ${c.dim("·")} ${session.agent.model.modelId} ${c.dim(`at ${session.endpoint.url}`)}\n` +
      c.dim(`${tools} tool${tools === 1 ? "" : "s"} from ${connected} of ${servers.length} server${servers.length === 1 ? "" : "s"} · /help for commands · Ctrl-C cancels an answer\n\n`),
  );
}
