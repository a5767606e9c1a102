import type { Command, CommanderError } from "commander";
import { ExitCode } from "./errors.js";

/**
 * A mistake on the command line (unknown option, missing argument, bad value) is one line
 * on stderr with a pointer to the command's --help, and exit 2; help and --version still
 * print and exit 0. Applied to the program and each of its commands.
 */
export function reportUsageErrors(program: Command, stderr: NodeJS.WritableStream = process.stderr): void {
  const all = (command: Command): Command[] => [command, ...command.commands.flatMap(all)];
  for (const command of all(program)) {
    command.configureOutput({ outputError: () => {} });
    command.exitOverride((error: CommanderError) => {
      if (error.exitCode === 0 || error.code === "commander.help") process.exit(error.exitCode);
      const names: string[] = [];
      for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
      const path = names.join(" ");
      // Commander puts its suggestion on a second line: "(Did you mean tools?)".
      const [first, ...rest] = error.message.replace(/^error: /, "").split("\n");
      const suggestion = /^\(Did you mean (.+)\?\)$/.exec(rest.join(" ").trim())?.[1];
      const message = suggestion ? `${first} (did you mean ${suggestion}?)` : first;
      stderr.write(`${program.name()}: ${message} (see \`${path} --help\`)\n`);
      process.exit(ExitCode.usage);
    });
  }
}
