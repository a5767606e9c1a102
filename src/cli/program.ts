import { Command } from "commander";
import { registerServe } from "./commands/serve.js";
import { registerHubCommands } from "./commands/hub-commands.js";
import { registerAgentCommands } from "./commands/agent-commands.js";
import { registerGateway } from "./commands/gateway.js";
import { registerLaunch } from "./commands/launch.js";
import { registerAuthCommands } from "./commands/auth.js";
import { registerMcpCommands } from "./commands/mcp.js";
import { registerModelsCommands } from "./commands/models.js";
import { registerEvalCommand } from "./commands/eval.js";
import { registerInstallLocal } from "./commands/install-local.js";
import { PACKAGE_VERSION } from "../version.js";
import { reportUsageErrors } from "./usage-errors.js";
import { addHelpExamples } from "./help-examples.js";

/**
 * Every command and flag of `toolbridge`, defined but not run: main.ts parses the command line with it, and the
 * docs generator (scripts/docs/cli-reference.ts) writes docs/reference/cli.md from the same definitions.
 */
export function createProgram(): Command {
  const program = new Command("toolbridge")
    .description("Connect any language model to the tools, resources and prompts of MCP servers.")
    .version(PACKAGE_VERSION);

  registerHubCommands(program);
  registerAgentCommands(program);
  registerAuthCommands(program);
  registerMcpCommands(program);
  registerModelsCommands(program);
  registerInstallLocal(program);
  registerEvalCommand(program);
  registerServe(program);
  registerGateway(program);
  registerLaunch(program);
  reportUsageErrors(program);
  addHelpExamples(program);
  return program;
}
