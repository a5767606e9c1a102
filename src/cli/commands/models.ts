import type { Command } from "commander";
import { action } from "../errors.js";
import type { ProbeFlags } from "./models-actions.js";

/** `toolbridge models probe [MODEL]`: which way of calling tools works best for a model, measured. */
export function registerModelsCommands(program: Command): void {
  const models = program.command("models").description("the model server's models, and how each calls tools best");
  models
    .command("probe")
    .description("ask the model for one tool call in each tool mode (native-strict, native, prompt) and print the table; the best mode is cached for --tool-mode auto")
    .argument("[model]", "the model to probe (default: the config's, or the first the server lists)")
    .option("--base-url <url>", "the model server's OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1)")
    .option("--provider <name>", "openai-compatible, vllm, ollama, openai, anthropic, gemini or local")
    .option("-c, --config <file>", "the config file (default: ./toolbridge.json, then the user config)")
    .option("--json", "print the table as JSON")
    .action(action(async (model: string | undefined, flags: ProbeFlags) => (await import("./models-actions.js")).probe(model, flags)));
}
