import { describe, expect, it } from "vitest";
import picocolors from "picocolors";
import { assignArguments, findPromptCommand, parsePromptArguments, promptCommands, promptTurn, renderPromptCommands, tokenize, usage } from "../../../src/cli/chat/prompt-commands.js";
import type { HubPrompt } from "../../../src/mcp/types.js";

const timeIn: HubPrompt = {
  server: "time",
  name: "time-in",
  description: "the time in a city",
  arguments: [
    { name: "city", required: true, description: "a city" },
    { name: "format", required: false },
  ],
};
const plain: HubPrompt = { server: "notes", name: "summary" };

describe("prompt commands: naming", () => {
  it("names a prompt /NAME, and /SERVER:NAME where two servers offer it or a built-in has the name", () => {
    const commands = promptCommands(
      [timeIn, { server: "a", name: "review" }, { server: "b", name: "review" }, { server: "c", name: "help" }, { server: "d", name: "two words" }],
      ["help", "exit"],
    );
    expect(commands.map((command) => command.name)).toEqual(["time-in", "a:review", "b:review", "c:help", "two-words"]);
  });

  it("finds a command by its listed name or its SERVER:NAME form", () => {
    const commands = promptCommands([timeIn], []);
    expect(findPromptCommand(commands, "time-in")?.prompt).toBe(timeIn);
    expect(findPromptCommand(commands, "time:time-in")?.prompt).toBe(timeIn);
    expect(findPromptCommand(commands, "time")).toBeUndefined();
  });
});

describe("prompt commands: arguments", () => {
  const [command] = promptCommands([timeIn], []);

  it("fills arguments in the prompt's order, the last one taking the rest of the line", () => {
    expect(parsePromptArguments(command!, "Taipei iso")).toEqual({ city: "Taipei", format: "iso" });
    expect(parsePromptArguments(command!, "Taipei long form words")).toEqual({ city: "Taipei", format: "long form words" });
    expect(parsePromptArguments(command!, "Taipei")).toEqual({ city: "Taipei" });
  });

  it("takes name=value in any order and quoted words with spaces", () => {
    expect(parsePromptArguments(command!, 'format=iso "New York"')).toEqual({ city: "New York", format: "iso" });
    expect(parsePromptArguments(command!, "city='Hood River'")).toEqual({ city: "Hood River" });
    // A word with = whose name is no argument is a value.
    expect(assignArguments(timeIn, ["a=b"]).args).toEqual({ city: "a=b" });
  });

  it("explains a missing required argument from the prompt's own list, with the chat's usage as the example", () => {
    expect(() => parsePromptArguments(command!, "format=iso")).toThrow(
      'prompt "time-in" needs the argument "city"; its arguments (* required): city* (a city), format; e.g. /time-in <city> [format]',
    );
  });

  it("refuses words for a prompt that takes no arguments", () => {
    const [bare] = promptCommands([plain], []);
    expect(() => parsePromptArguments(bare!, "stray words")).toThrow('/summary takes no arguments (got "stray words")');
    expect(parsePromptArguments(bare!, "  ")).toEqual({});
  });

  it("shows the usage with required and optional arguments", () => {
    expect(usage(command!)).toBe("/time-in <city> [format]");
  });

  it("tokenizes with quotes and keeps where each word stands", () => {
    expect(tokenize(' a "b c"d  \'e')).toEqual([
      { value: "a", start: 1, end: 2 },
      { value: "b cd", start: 3, end: 9 },
      { value: "e", start: 11, end: 13 },
    ]);
  });
});

describe("prompt commands: /help", () => {
  it("lists each command with its usage, description and server, cleaned of escape sequences", () => {
    const hostile: HubPrompt = { server: "evil\x1b]2;x\x07", name: "p", description: "does \x1b[8mthings\nwell" };
    const text = renderPromptCommands(promptCommands([timeIn, hostile], []), picocolors.createColors(false));
    expect(text).toBe(`  /time-in <city> [format]  the time in a city (time)\n  ${"/p".padEnd(24)}  does things well (evil)`);
  });
});

describe("prompt commands: the turn", () => {
  it("sends the last user message and puts the ones before it into the conversation", () => {
    const turn = promptTurn({
      messages: [
        { role: "user", content: { type: "text", text: "Here is the code." } },
        { role: "assistant", content: { type: "text", text: "I see it." } },
        { role: "user", content: { type: "text", text: "Review it." } },
        { role: "user", content: { type: "image", data: "aGk=", mimeType: "image/png" } },
      ],
    });
    expect(turn.before).toEqual([
      { role: "user", content: "Here is the code." },
      { role: "assistant", content: "I see it." },
    ]);
    expect(turn.input).toEqual([
      { type: "text", text: "Review it." },
      { type: "image", data: "aGk=", mimeType: "image/png" },
    ]);
  });

  it("sends nothing new when the prompt ends with the assistant's words, and refuses an empty prompt", () => {
    const turn = promptTurn({ messages: [{ role: "user", content: { type: "text", text: "Q" } }, { role: "assistant", content: { type: "text", text: "A:" } }] });
    expect(turn).toEqual({ before: [{ role: "user", content: "Q" }, { role: "assistant", content: "A:" }], input: null });
    expect(() => promptTurn({ messages: [] })).toThrow("the prompt has no messages");
  });

  it("keeps an embedded resource's text", () => {
    const turn = promptTurn({ messages: [{ role: "user", content: { type: "resource", resource: { uri: "file:///a.txt", text: "alpha" } } }] });
    expect(turn.input).toBe("[resource file:///a.txt]\nalpha");
  });
});
