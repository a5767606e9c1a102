import { createInterface } from "node:readline";
import { NODE_LLAMA_CPP_VERSION } from "../llm/runtime-install.js";
import type { Colors } from "./render/colors.js";

export interface RuntimeOfferIo {
  input: NodeJS.ReadableStream;
  /** Where the question and the progress go: stderr, so that stdout keeps only the answer. */
  output: NodeJS.WriteStream;
  colors: Colors;
}

/**
 * The question asked on first use of `--provider local` when llama.cpp's runtime is not
 * installed: whether to install its CPU build now, into `dir`. Only Enter on "y" or "yes" says
 * yes. Ctrl-C is the interrupt it is anywhere else in `run`.
 */
export function runtimeOffer(io: RuntimeOfferIo, dir: string): () => Promise<boolean> {
  return async () => {
    const { colors: c } = io;
    // On its own line: the servers' start-up line is rewritten in place beside it.
    io.output.write(`\r\x1b[2K${c.yellow("?")} --provider local runs models with llama.cpp (node-llama-cpp ${NODE_LLAMA_CPP_VERSION}), which is not installed yet.\n`);
    io.output.write(`  ${c.dim(`Install its CPU build (about 85 MB, from the npm registry) into ${dir}?`)}\n`);
    const rl = createInterface({ input: io.input, output: io.output, terminal: true });
    rl.on("SIGINT", () => process.kill(process.pid, "SIGINT"));
    try {
      const answer = await new Promise<string>((resolve) => rl.question(`  ${c.bold("y")} install, ${c.bold("n")} not now [y/N] `, resolve));
      return /^(y|yes)$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  };
}

/** A progress line for the install, on a terminal only (undefined elsewhere), cleared when it ends. */
export function runtimeProgress(stream: NodeJS.WriteStream): ((fetched: number, done: boolean) => void) | undefined {
  if (!stream.isTTY) return undefined;
  return (fetched, done) => stream.write(done ? "\r\x1b[K" : `\r\x1b[Kinstalling node-llama-cpp: ${fetched} package${fetched === 1 ? "" : "s"} fetched`);
}
