import type { Command } from "commander";

// Placeholder until this command group lands.
export function registerHubCommands(_program: Command): void {}
