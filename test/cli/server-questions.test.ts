import type { ElicitRequestFormParams } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { askForm, askUrl, terminalElicitation } from "../../src/cli/server-questions/elicitation.js";
import { PrompterSlot, type Prompter } from "../../src/cli/server-questions/prompter.js";
import { terminalSamplingApproval } from "../../src/cli/server-questions/sampling.js";
import { colorsFor } from "../../src/cli/render/colors.js";

/** The terminal's answers to servers, driven by a scripted person. */

const c = colorsFor({ isTTY: false }, {});

function person(answers: (string | undefined)[]): Prompter & { shown: string; asked: string[] } {
  const queue = [...answers];
  const me = {
    shown: "",
    asked: [] as string[],
    write: (text: string) => void (me.shown += text),
    question: async (prompt: string) => {
      me.asked.push(prompt);
      return queue.shift();
    },
  };
  return me;
}

const form: ElicitRequestFormParams = {
  message: "About you\x1b]0;evil\x07",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", title: "Name", minLength: 2 },
      age: { type: "integer", minimum: 0 },
      color: { type: "string", oneOf: [{ const: "r", title: "Red" }, { const: "g", title: "Green" }] },
      pets: { type: "array", items: { type: "string", enum: ["cat", "dog"] } },
      subscribe: { type: "boolean", default: false },
    },
    required: ["name", "age"],
  },
};

describe("a form on the terminal", () => {
  it("asks each field, checks answers, numbers choices and takes defaults", async () => {
    const p = person(["", "A", "Ada", "old", "36", "2", "1,2", ""]);
    const result = await askForm(p, form, "srv", c);
    expect(result).toEqual({ action: "accept", content: { name: "Ada", age: 36, color: "g", pets: ["cat", "dog"], subscribe: false } });
    expect(p.shown).toContain("at least 2 characters");
    expect(p.shown).toContain("expected a whole number");
    expect(p.shown).toContain("2. Green");
    expect(p.shown).not.toContain("\x1b");
  });

  it("declines or cancels as the person says, and Ctrl-D cancels", async () => {
    expect(await askForm(person(["n"]), form, "srv", c)).toEqual({ action: "decline" });
    expect(await askForm(person(["c"]), form, "srv", c)).toEqual({ action: "cancel" });
    expect(await askForm(person(["", undefined]), form, "srv", c)).toEqual({ action: "cancel" });
  });

  it("gives up on a field after three wrong answers", async () => {
    expect(await askForm(person(["", "x", "y", "z"]), form, "srv", c)).toEqual({ action: "cancel" });
  });

  it("with nobody to ask, declines and says so once", async () => {
    const warned: string[] = [];
    const handlers = terminalElicitation(new PrompterSlot(), c, (line) => warned.push(line));
    expect(await handlers.onElicitation(form, "srv")).toEqual({ action: "decline" });
    expect(warned).toEqual(['server "srv" asked for input (About you); declined: no terminal to ask on']);
  });
});

describe("a URL on the terminal", () => {
  const request = { mode: "url" as const, message: "Sign in", url: "https://example.com/login", elicitationId: "e1" };

  it("opens it only when the person says yes", async () => {
    const opened: string[] = [];
    expect(await askUrl(person(["y"]), request, "srv", c, (url) => opened.push(url))).toEqual({ action: "accept" });
    expect(await askUrl(person([""]), request, "srv", c, (url) => opened.push(url))).toEqual({ action: "decline" });
    expect(opened).toEqual(["https://example.com/login"]);
  });

  it("declines a URL with control characters, and an app's scheme, in one line and without asking", async () => {
    const opened: string[] = [];
    const escaped = person([]);
    expect(await askUrl(escaped, { ...request, url: "https://example.com/login\u202e@evil.example" }, "srv", c, (url) => opened.push(url))).toEqual({ action: "decline" });
    expect(escaped.shown).toBe('server "srv" asked you to open a page; declined: the URL contains control characters\n');
    const app = person([]);
    expect(await askUrl(app, { ...request, url: "vscode://ext/install?x" }, "srv", c, (url) => opened.push(url))).toEqual({ action: "decline" });
    expect(app.shown).toContain("only https URLs (or http on this machine) are opened, not vscode:");
    expect(opened).toEqual([]);
  });

  it("shows a look-alike domain in punycode and opens what it showed", async () => {
    const opened: string[] = [];
    const p = person(["y"]);
    await askUrl(p, { ...request, url: "https://e\u0445ample.com/login" }, "srv", c, (url) => opened.push(url));
    expect(p.shown).toContain("https://xn--eample-bsf.com/login");
    expect(opened).toEqual(["https://xn--eample-bsf.com/login"]);
  });

  it("shows the URL and who asks", async () => {
    const p = person(["n"]);
    await askUrl(p, request, "srv", c, () => undefined);
    expect(p.shown).toContain('server "srv" asks you to open a page');
    expect(p.shown).toContain("https://example.com/login");
  });
});

describe("a sampling request on the terminal", () => {
  const request = { server: "srv", messages: ["user: hi"], maxTokens: 10, tools: [], model: "m" };

  it("maps y, a and anything else to once, always for this server, and deny", async () => {
    const ask = (answer: string) => terminalSamplingApproval(new PrompterSlot(person([answer])), c, () => undefined)(request, undefined);
    expect(await ask("y")).toEqual({ decision: "allow-once" });
    expect(await ask("a")).toEqual({ decision: "allow-session" });
    expect(await ask("")).toEqual({ decision: "deny" });
  });
});
