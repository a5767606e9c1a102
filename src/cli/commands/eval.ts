import type { Command } from "commander";
import { action } from "../errors.js";
import type { EvalFlags } from "./eval-actions.js";

/** `toolbridge eval`: how well a model calls tools in each tool mode, measured over a task set. */
export function registerEvalCommand(program: Command): void {
  program
    .command("eval")
    .description(
      "run a set of tool-use tasks over the bundled time and math servers in each tool mode and print, per mode, the tasks right and what went wrong; --tool-mode auto then follows the mode with the most tasks right",
    )
    .option("--base-url <url>", "the model server's OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1)")
    .option("--model <name>", "the model to measure (default: the config's, or the first the server lists)")
    .option("--provider <name>", "openai-compatible, vllm, ollama, openai, anthropic, gemini or local")
    .option("-c, --config <file>", "the config file (default: ./toolbridge.json, then the user config)")
    .option("--modes <list>", "the tool modes to measure, comma-separated (default native-strict,native,prompt)")
    .option("--tasks <file>", "a task file of your own instead of the bundled set (the same JSON shape)")
    .option("--concurrency <n>", "tasks run at once within a mode (default 4)")
    .option("--limit <n>", "run only n tasks, spread evenly over the set")
    .option("--json", "print the results as JSON")
    .option("--markdown", "print the results as a Markdown table")
    .action(action(async (flags: EvalFlags) => (await import("./eval-actions.js")).runEvalCommand(flags)));
}
