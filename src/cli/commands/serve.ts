import type { Command } from "commander";

// Placeholder until this command group lands.
export function registerServe(_program: Command): void {}
