import type { ApprovalAnswer, ApproveSamplingCallback, SamplingApprovalRequest } from "../../agent/approval.js";
import type { Colors } from "../render/colors.js";
import { oneLine } from "../render/one-line.js";
import type { PrompterSlot } from "./prompter.js";

/**
 * Asks on the terminal (in the front end's dialog, where it has one) whether a server may use the model: who asks, with what system
 * prompt, messages and tools, for how many tokens. Allow once, always for this server, or deny.
 * With nobody to ask, the request is refused and one line on stderr says so.
 */
export function terminalSamplingApproval(slot: PrompterSlot, c: Colors, warn: (line: string) => void): ApproveSamplingCallback {
  return async (request, signal) => {
    if (slot.dialogs) return slot.dialogs.approveSampling(request, signal);
    const prompter = slot.current;
    if (!prompter) {
      warn(`server "${oneLine(request.server)}" asked to use the model; refused: no terminal to ask on (--approve all, or trust the server, allows it)`);
      return { decision: "deny", reason: "no terminal to ask on" };
    }
    prompter.write(describe(request, c));
    const answer = await prompter.question(c.dim("allow? [y]es once, [a]lways for this server, [N]o: "), signal);
    return decision(answer);
  };
}

function describe(request: SamplingApprovalRequest, c: Colors): string {
  const lines = [`\n${c.bold(`server "${oneLine(request.server)}" asks to use the model`)} ${c.dim(`${oneLine(request.model)}, up to ${request.maxTokens} tokens`)}`];
  if (request.systemPrompt) lines.push(`  ${c.dim("system:")} ${oneLine(request.systemPrompt).slice(0, 300)}`);
  for (const message of request.messages.slice(-5)) lines.push(`  ${oneLine(message)}`);
  if (request.messages.length > 5) lines.push(c.dim(`  (${request.messages.length - 5} earlier messages)`));
  if (request.tools.length) lines.push(`  ${c.dim("tools:")} ${request.tools.map(oneLine).join(", ")}`);
  return `${lines.join("\n")}\n`;
}

function decision(answer: string | undefined): ApprovalAnswer {
  const text = answer?.trim().toLowerCase() ?? "";
  if (text === "y" || text === "yes") return { decision: "allow-once" };
  if (text === "a" || text === "always") return { decision: "allow-session" };
  return { decision: "deny" };
}
