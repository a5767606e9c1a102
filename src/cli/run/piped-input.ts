import { UsageError } from "../errors.js";

/** Piped context bigger than this is refused, not cut: a review of half a diff would mislead. */
export const MAX_PIPED_BYTES = 1024 * 1024;

/** How long stdin may stay silent before the user is told that `run` waits for it to end. */
export const QUIET_STDIN_MS = 3000;

export interface PipedInputOptions {
  maxBytes?: number;
  /**
   * Called once when nothing has arrived within `quietMs`: a script that leaves stdin open
   * (neither a terminal nor a pipe that ends) would otherwise wait without a word. Reading
   * goes on, since a slow command before the pipe is normal (`make 2>&1 | toolbridge run …`).
   */
  onQuiet?: () => void;
  quietMs?: number;
  /** Read a terminal too, to its end (Ctrl-D): `run -` asks for the prompt on stdin. */
  fromTerminal?: boolean;
}

/**
 * What was piped into `run` (`git diff | toolbridge run "review this"`), as text; undefined
 * when stdin is a terminal. Refuses more than `maxBytes` with one line saying how much is
 * allowed, without reading further.
 */
export async function readPipedInput(stdin: NodeJS.ReadableStream & { isTTY?: boolean }, options: PipedInputOptions = {}): Promise<string | undefined> {
  if (stdin.isTTY && !options.fromTerminal) return undefined;
  const { maxBytes = MAX_PIPED_BYTES, onQuiet, quietMs = QUIET_STDIN_MS } = options;
  const quiet = onQuiet ? setTimeout(onQuiet, quietMs) : undefined;
  try {
    return await readAll(stdin, maxBytes, () => clearTimeout(quiet));
  } finally {
    clearTimeout(quiet);
  }
}

async function readAll(stdin: NodeJS.ReadableStream, maxBytes: number, onData: () => void): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    onData();
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > maxBytes) {
      // Stop reading; the writer gets EPIPE rather than blocking on a full pipe.
      (stdin as NodeJS.ReadStream).destroy?.();
      throw new UsageError(`stdin: more than ${formatSize(maxBytes)} piped in; pipe in less (e.g. a narrower git diff, or head -c ${maxBytes})`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** `run -`: the prompt is what stdin holds, as `cat -` reads it. */
export const PROMPT_FROM_STDIN = "-";

/** The question and the piped text as one message; either may be missing, not both. */
export function promptWithInput(prompt: string | undefined, piped: string | undefined): string {
  const context = piped?.trim() === "" ? undefined : piped?.replace(/\s+$/, "");
  if (prompt === undefined || prompt.trim() === "" || prompt === PROMPT_FROM_STDIN) {
    if (context === undefined) throw new UsageError('run needs a prompt: toolbridge run "PROMPT", or text piped into it');
    return context;
  }
  return context === undefined ? prompt : `${prompt}\n\n${context}`;
}

function formatSize(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}
