import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from "@modelcontextprotocol/client";
import type { ApproveSamplingCallback } from "../../agent/approval.js";
import { createInterface, type Interface } from "node:readline";

/** What a front end with dialogs answers when servers ask. */
export interface QuestionDialogs {
  approveSampling: ApproveSamplingCallback;
  elicitForm(request: ElicitRequestFormParams, server: string): Promise<ElicitResult>;
  elicitUrl(request: ElicitRequestURLParams, server: string): Promise<ElicitResult>;
}

/** Asks a person one line at a time; undefined when the input ends (Ctrl-D) or the ask is aborted. */
export interface Prompter {
  question(prompt: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Writes what the person reads before answering (already cleaned). */
  write(text: string): void;
}

/**
 * Who can be asked right now. Servers ask (elicitation, sampling) while a command runs, so the
 * handlers look here when a request comes: the chat puts its own line editor in, a command on
 * a terminal a prompter of its own, a script none.
 */
export class PrompterSlot {
  current: Prompter | undefined;
  /** A front end that asks in dialogs of its own (the chat) rather than line by line; preferred when set. */
  dialogs: QuestionDialogs | undefined;

  constructor(initial?: Prompter) {
    this.current = initial;
  }
}

/** A prompter on a terminal that opens a line editor per question; undefined when stdin or stderr is not a terminal. */
export function terminalPrompter(input: NodeJS.ReadStream, output: NodeJS.WriteStream): Prompter | undefined {
  if (input.isTTY !== true || output.isTTY !== true) return undefined;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    write: (text) => void output.write(text),
    // One question at a time: two servers asking at once are answered in turn.
    question(prompt, signal) {
      const asked = queue.then(() => {
        const rl = createInterface({ input, output, terminal: true });
        return ask(rl, prompt, signal).finally(() => rl.close());
      });
      queue = asked.catch(() => undefined);
      return asked;
    },
  };
}

/** A prompter over a line editor someone else owns (the chat's). */
export function readlinePrompter(rl: Interface, output: NodeJS.WriteStream): Prompter {
  return { write: (text) => void output.write(text), question: (prompt, signal) => ask(rl, prompt, signal) };
}

function ask(rl: Interface, prompt: string, signal: AbortSignal | undefined): Promise<string | undefined> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(undefined);
    const done = (answer: string | undefined): void => {
      rl.off("close", onClose);
      signal?.removeEventListener("abort", onAbort);
      resolve(answer);
    };
    const onClose = (): void => done(undefined);
    const onAbort = (): void => done(undefined);
    rl.once("close", onClose);
    signal?.addEventListener("abort", onAbort, { once: true });
    rl.question(prompt, (answer) => done(answer));
  });
}
