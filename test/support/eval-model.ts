/**
 * TEST INFRASTRUCTURE ONLY: a scripted model for `toolbridge eval`, answering each request of
 * the scripted vLLM server from the task it belongs to (found by its prompt) and how far the
 * conversation is. Right: a search first when the task has tool search on, then each step of
 * the task's reference solution (native calls when the request offers tools, hermes
 * `<tool_call>` text in prompt mode), then an answer stating the values (or echoing the tool's
 * last result). `faults` makes chosen tasks go wrong in one known way each.
 */
import type { EvalTask, TaskSet } from "../../src/agent/eval/task-set.js";
import type { VllmReply } from "./vllm-server.js";

export type EvalFault =
  /** Calls subtract with the reference's arguments, then gives up. */
  | "wrong-tool"
  /** Calls the reference tool with its first argument as text no schema typing makes a number of, then gives up. */
  | "wrong-type"
  /** Calls add on a task that needs no tool, then answers rightly. */
  | "false-call"
  /** Writes the reference call as prose instead of calling. */
  | "prose";

/** Usage per request: each request of a run counts 15 tokens. */
export const EVAL_USAGE = { prompt_tokens: 10, completion_tokens: 5 };

type Body = { messages: Array<{ role: string; content?: unknown }>; tools?: unknown[] };
type Call = { name: string; arguments: Record<string, unknown> };

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

/** The model's steps for a task: the calls of each request, before the answer. */
export function plannedSteps(task: EvalTask): Call[][] {
  const steps = (task.reference ?? []).map((step) => step.map((call) => ({ name: call.tool, arguments: call.arguments })));
  const first = steps[0]?.[0];
  return task.tools === "all+decoys" && first ? [[{ name: "search_tools", arguments: { query: first.name } }], ...steps] : steps;
}

export function evalResponder(set: TaskSet, faults: Record<string, EvalFault> = {}): (body: Body) => VllmReply {
  return (body) => {
    const user = body.messages.find((message) => message.role === "user");
    const asked = text(user?.content);
    // The longest prompt the message holds: "Quick one: What is…" holds "What is…" too.
    const task = set.tasks.filter((candidate) => asked.includes(candidate.prompt)).sort((a, b) => b.prompt.length - a.prompt.length)[0];
    if (!task) return { kind: "error", status: 400, message: `scripted eval model: no task for ${asked.slice(0, 80)}` };
    const native = Array.isArray(body.tools) && body.tools.length > 0;
    const step = body.messages.filter((message) => message.role === "assistant").length;
    const reply = (calls: Call[]): VllmReply =>
      native
        ? { toolCalls: calls, usage: EVAL_USAGE }
        : { text: calls.map((call) => `<tool_call>\n${JSON.stringify(call)}\n</tool_call>`).join("\n"), usage: EVAL_USAGE };
    const say = (words: string): VllmReply => ({ text: words, usage: EVAL_USAGE });
    const reference = task.reference?.[0]?.[0];
    switch (faults[task.id]) {
      case "wrong-tool":
        return step === 0 && reference ? reply([{ name: "subtract", arguments: reference.arguments }]) : say("I could not work it out.");
      case "wrong-type": {
        if (step > 0 || !reference) return say("I could not work it out.");
        const [key, value] = Object.entries(reference.arguments)[0] ?? ["a", 0];
        return reply([{ name: reference.tool, arguments: { ...reference.arguments, [key]: `${String(value)} units` } }]);
      }
      case "false-call":
        return step === 0 ? reply([{ name: "add", arguments: { a: 1, b: 2 } }]) : say(rightAnswer(task, body));
      case "prose":
        return say(reference ? `I would call ${reference.tool} with ${JSON.stringify(reference.arguments)}.` : "I would call a tool.");
      default: {
        const steps = plannedSteps(task);
        const calls = steps[step];
        return calls ? reply(calls) : say(rightAnswer(task, body));
      }
    }
  };
}

function rightAnswer(task: EvalTask, body: Body): string {
  const expect = task.expect;
  if (expect.kind === "none") return `${expect.answer[0]?.split("|")[0] ?? "Done"}.`;
  if (expect.kind === "value") return `The answer is ${expect.values.join(" and ")}.`;
  // A date: the tool's last result, as it came back (a tool message, or prompt mode's user message).
  const last = [...body.messages].reverse().find((message) => message.role === "tool" || message.role === "user");
  return `Here it is: ${text(last?.content)}`;
}
