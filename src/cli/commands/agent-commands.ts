import type { Command } from "commander";

// Placeholder until this command group lands.
export function registerAgentCommands(_program: Command): void {}
