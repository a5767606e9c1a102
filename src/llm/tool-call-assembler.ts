import type { AnswerBudget } from "./answer-limit.js";
import { newCallId } from "./call-id.js";
import type { ToolCall } from "./types.js";

interface Pending {
  id?: string;
  name?: string;
  arguments: string;
}

/**
 * Puts streamed tool calls together. Servers send each call in fragments tied by an index:
 * id and name come once (whichever fragment has them first), argument text is appended
 * from every fragment. The arguments stay the raw text; validating them is the caller's job.
 */
export class ToolCallAssembler {
  private readonly pending = new Map<number, Pending>();

  /** Argument text counts against the answer's budget as it arrives. */
  constructor(private readonly budget?: AnswerBudget) {}

  get size(): number {
    return this.pending.size;
  }

  add(index: number, fragment: { id?: string | null; name?: string | null; arguments?: string | null }): void {
    let call = this.pending.get(index);
    if (!call) {
      call = { arguments: "" };
      this.pending.set(index, call);
    }
    if (fragment.id && !call.id) call.id = fragment.id;
    if (fragment.name && !call.name) call.name = fragment.name;
    if (fragment.arguments) {
      this.budget?.spend(fragment.arguments.length);
      call.arguments += fragment.arguments;
    }
  }

  /** The slot of a call known by id, for servers that send whole calls without an index. */
  indexOf(id: string): number | undefined {
    for (const [index, call] of this.pending) if (call.id === id) return index;
    return undefined;
  }

  /** The finished calls in index order; a call the server sent without an id gets one. */
  drain(): ToolCall[] {
    const calls = [...this.pending.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]): ToolCall => ({
        id: call.id ?? newCallId(),
        name: call.name ?? "",
        // A call to a tool without parameters may stream no argument text at all.
        arguments: call.arguments.trim() === "" ? "{}" : call.arguments,
      }));
    this.pending.clear();
    return calls;
  }
}
