import type { Command } from "commander";

/**
 * A few command lines under each command's --help, as most people learn a tool from them. Kept
 * here, by the command's path, so the commands' own files stay about what they do.
 */
export const HELP_EXAMPLES: Record<string, readonly string[]> = {
  "": ["toolbridge chat --base-url http://127.0.0.1:8000/v1", 'toolbridge run "what time is it in Taipei?"', "toolbridge mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ~/notes", "toolbridge tools"],
  servers: ["toolbridge servers", "toolbridge servers --json"],
  tools: ["toolbridge tools", "toolbridge tools get-date", "toolbridge tools --server time"],
  call: ["toolbridge call get-date", `toolbridge call add '{"a": 1, "b": 2}'`, "toolbridge call time__get-date --json"],
  run: ['toolbridge run "what time is it in Taipei?"', 'git diff | toolbridge run "review this change"', 'toolbridge run --model qwen3 --approve all "tidy ~/notes"'],
  chat: ["toolbridge chat", "toolbridge chat --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B", "toolbridge chat --continue", 'echo "what time is it?" | toolbridge chat'],
  "mcp add": ["toolbridge mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ~/notes", "toolbridge mcp add docs --url https://example.com/mcp --header 'Authorization: Bearer ${DOCS_TOKEN}'"],
  "models probe": ["toolbridge models probe", "toolbridge models probe Qwen/Qwen3-8B --base-url http://127.0.0.1:8000/v1"],
  "install-local": ["toolbridge install-local", "toolbridge install-local --gpu cuda"],
  prompt: [`toolbridge prompt time-in '{"place": "Taipei"}'`],
  serve: ["toolbridge serve time", "toolbridge serve hub"],
  gateway: ["toolbridge gateway", "toolbridge gateway --listen 0.0.0.0:8080 --base-url http://127.0.0.1:8000/v1"],
};

/** Adds the examples to every command that has some (`program` itself under ""). */
export function addHelpExamples(program: Command): void {
  const visit = (command: Command, path: string): void => {
    const examples = HELP_EXAMPLES[path];
    if (examples) command.addHelpText("after", `\nExamples:\n${examples.map((line) => `  $ ${line}`).join("\n")}\n`);
    for (const sub of command.commands) visit(sub, path === "" ? sub.name() : `${path} ${sub.name()}`);
  };
  visit(program, "");
}
