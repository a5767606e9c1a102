#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { registerServe } from "./commands/serve.js";
import { registerHubCommands } from "./commands/hub-commands.js";
import { registerAgentCommands } from "./commands/agent-commands.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

const program = new Command("toolbridge")
  .description("Connect any language model to the tools, resources and prompts of MCP servers.")
  .version(pkg.version)
  .showHelpAfterError();

registerHubCommands(program);
registerAgentCommands(program);
registerServe(program);

await program.parseAsync(process.argv);
