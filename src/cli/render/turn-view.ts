import type { AgentEvent, TurnResult } from "../../agent/events.js";
import { summarizeContent } from "../../agent/tool-result.js";
import type { Colors } from "./colors.js";
import { cleanTerminalText as clean, TerminalTextCleaner } from "./terminal-text.js";
import { progressText } from "./progress-text.js";
import { ProgressThrottle } from "./progress-throttle.js";

export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface TurnViewOptions {
  stdout: OutputStream;
  stderr: OutputStream;
  outColors: Colors;
  errColors: Colors;
  /** Stream the answer to stdout as it comes (chat); `run` prints the final answer itself. */
  streamAnswer: boolean;
  /** Show the model's reasoning, dimmed, before its answer. */
  showReasoning: boolean;
  /** Trace every step on stderr, as `[toolbridge] ...` lines. */
  verbose: boolean;
  /** Where requests go, for the trace: read at each request, as chat's /model switches the model. */
  endpoint: () => { url: string; model: string };
  /** Decides which progress notifications are shown (default: the first, then one a second per call). */
  progress?: ProgressThrottle;
}

const MAX_ARGS_SHOWN = 200;

/**
 * Shows one agent's events on the terminal: the answer on stdout, everything about the
 * work (tool calls, notices, errors, the verbose trace) on stderr.
 */
export class TurnView {
  /** stdout has text with no newline yet. */
  private midLine = false;
  private inReasoning = false;
  // The model's text is cleaned as it streams; a sequence split across deltas is still caught.
  private textCleaner = new TerminalTextCleaner();
  private reasoningCleaner = new TerminalTextCleaner();
  private readonly progress: ProgressThrottle;

  constructor(private readonly options: TurnViewOptions) {
    this.progress = options.progress ?? new ProgressThrottle();
  }

  handle(event: AgentEvent): void {
    const { outColors: o, errColors: e, verbose } = this.options;
    switch (event.type) {
      case "model-request":
        if (!verbose) break;
        if (event.iteration === 1) {
          const { url, model } = this.options.endpoint();
          this.trace(`sending request to ${url} (model ${model}, ${event.toolCount} tool${event.toolCount === 1 ? "" : "s"})`);
        } else if (event.withTools) this.trace("sending the tool results back to the model");
        else this.trace("tool-call limit reached; asking the model to answer from what it has");
        break;
      case "reasoning-delta":
        if (this.options.showReasoning) {
          const text = this.reasoningCleaner.push(event.text);
          if (text === "") break;
          this.inReasoning = true;
          this.writeOut(o.dim(text));
          this.midLine = !text.endsWith("\n");
        }
        break;
      case "text-delta": {
        if (!this.options.streamAnswer) break;
        const text = this.textCleaner.push(event.text);
        if (text === "") break;
        if (this.inReasoning) {
          this.inReasoning = false;
          this.endLine();
          this.writeOut("\n");
        }
        this.writeOut(text);
        this.midLine = !text.endsWith("\n");
        break;
      }
      case "tool-call-started": {
        const args = typeof event.arguments === "string" ? event.arguments : JSON.stringify(event.arguments);
        const shown = clean(summarizeContent(args, MAX_ARGS_SHOWN));
        const name = clean(event.name);
        if (verbose) {
          this.trace(`model returned tool_call: ${name}`);
          this.trace(`running tool: ${name}(${shown})`);
        } else this.errLine(`  ${e.cyan("⚙")} ${e.bold(name)} ${e.dim(shown)}`);
        break;
      }
      case "tool-progress": {
        if (!this.progress.shouldShow(event.id)) break;
        this.errLine(e.dim(clean(`    … ${event.name} ${progressText(event.progress)}`)));
        break;
      }
      case "tool-call-finished": {
        this.progress.done(event.id);
        const ms = `${Math.round(event.durationMs)} ms`;
        const name = clean(event.name);
        const summary = clean(event.summary);
        if (verbose) this.trace(`tool result (${ms}): ${summary}`, event.isError);
        else if (event.isError) this.errLine(`  ${e.red("✗")} ${e.bold(name)} ${e.dim(ms)}  ${e.red(summary)}`);
        else this.errLine(`  ${e.green("✓")} ${e.bold(name)} ${e.dim(ms)}  ${summary}`);
        if (event.outcome === "not-approved") {
          this.errLine(`${e.yellow("toolbridge:")} ${name} was not run: it needs approval and nobody can be asked here; allow it with --approve all (--approve readonly for read-only tools), or trust its server in the config`);
        }
        break;
      }
      case "usage":
        if (verbose) this.trace(`usage: ${event.usage.inputTokens} prompt + ${event.usage.outputTokens} completion tokens`);
        break;
      case "notice":
        this.errLine(`${e.yellow("toolbridge:")} ${clean(event.message)}`);
        break;
      case "error":
        this.errLine(`${e.red("toolbridge:")} ${clean(event.error.message)}`);
        break;
      case "turn-end":
        this.finish(event.turn);
        break;
    }
  }

  private finish(turn: TurnResult): void {
    const e = this.options.errColors;
    this.flushCleaners();
    this.endLine();
    this.inReasoning = false;
    if (this.options.verbose && turn.status === "completed") this.trace(`model's final answer: ${clean(summarizeContent(turn.text, 200))}`);
    if (turn.limitReached) {
      const why = turn.stopReason === "repeated-call" ? "the model repeated the same tool call" : `${turn.iterations - 1} rounds of tool calls`;
      this.errLine(e.yellow(`(stopped calling tools: ${why}; the answer is from what it had)`));
    }
    if (turn.status === "aborted") this.errLine(e.dim("(cancelled)"));
    if (this.options.verbose) this.trace(`turn done: ${turn.iterations} request${turn.iterations === 1 ? "" : "s"}, ${turn.toolCalls.length} tool call${turn.toolCalls.length === 1 ? "" : "s"}, ${Math.round(turn.durationMs)} ms`);
  }

  /** What the cleaners held back (a lone trailing CR) is written; a sequence left unfinished is dropped. */
  private flushCleaners(): void {
    const reasoning = this.reasoningCleaner.end();
    if (reasoning !== "" && this.options.showReasoning) this.writeOut(this.options.outColors.dim(reasoning));
    const text = this.textCleaner.end();
    if (text !== "" && this.options.streamAnswer) {
      this.writeOut(text);
      this.midLine = true;
    }
  }

  /** Ends a half-written stdout line, so stderr lines never land in the middle of the answer. */
  private endLine(): void {
    if (this.midLine) this.writeOut("\n");
    this.midLine = false;
  }

  private trace(message: string, isError = false): void {
    const e = this.options.errColors;
    this.errLine(`${e.dim("[toolbridge]")} ${isError ? e.red(message) : message}`);
  }

  private errLine(line: string): void {
    this.endLine();
    this.options.stderr.write(`${line}\n`);
  }

  private writeOut(text: string): void {
    this.options.stdout.write(text);
  }
}
