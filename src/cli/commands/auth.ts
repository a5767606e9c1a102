import type { Command } from "commander";
import { action } from "../errors.js";
import type { AuthOptions } from "./auth-actions.js";

const CONFIG_HELP = "config file (default: ./toolbridge.json, then ~/.config/toolbridge/config.json)";

export function registerAuthCommands(program: Command): void {
  const auth = program.command("auth").description("log in to remote servers that use OAuth, log out, and show who is logged in");

  auth
    .command("login")
    .description("log in through the browser to SERVER, or to every remote server that asks for a login")
    .argument("[server]", "the server's name in the config")
    .option("-c, --config <file>", CONFIG_HELP)
    .action(action(async (server: string | undefined, options: AuthOptions) => (await import("./auth-actions.js")).login(server, options)));

  auth
    .command("logout")
    .description("forget the tokens and client registration kept for SERVER, or for every remote server")
    .argument("[server]", "the server's name in the config")
    .option("-c, --config <file>", CONFIG_HELP)
    .action(action(async (server: string | undefined, options: AuthOptions) => (await import("./auth-actions.js")).logout(server, options)));

  auth
    .command("status")
    .description("show, per remote server, whether it is logged in, until when, and with which scope (never a token)")
    .argument("[server]", "the server's name in the config")
    .option("-c, --config <file>", CONFIG_HELP)
    .option("--json", "print the statuses as JSON")
    .action(action(async (server: string | undefined, options: AuthOptions) => (await import("./auth-actions.js")).status(server, options)));
}
