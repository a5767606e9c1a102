import type { ToolMode } from "../config/schema.js";
import { withStrictTools } from "../llm/strict-tools.js";
import type { ChatModel } from "../llm/types.js";

/** The ways a model can be asked to call tools, best first: constrained native calls, native calls, calls written in the text. */
export const PROBED_MODES = ["native-strict", "native", "prompt"] as const;
export type ProbedMode = (typeof PROBED_MODES)[number];

/** The two ways of wrapping a model for tool calling that do not rely on the server's `tools` field alone. */
export interface ToolCallingMiddlewares {
  /** Tools described in the prompt; calls parsed from the streamed text. */
  prompt(model: ChatModel): ChatModel;
  /** Native tools, plus calls the model wrote as text anyway (dual mode). */
  textFallback(model: ChatModel): ChatModel;
}

/**
 * Which model wrapper a session talks to. In "auto" it starts in the mode a probe found best
 * for this model (`probed`: strict native calls, native calls without `strict`, or prompt
 * mode), else native; and it moves to prompt mode, for the rest of the session, the first
 * time the server refuses `tools`.
 */
export class ToolModeSession {
  private active: ChatModel;
  private mode: "native" | "prompt";

  constructor(
    private readonly base: ChatModel,
    readonly configured: ToolMode,
    private readonly middlewares: ToolCallingMiddlewares,
    probed?: ProbedMode,
  ) {
    const follow = configured === "auto" ? probed : undefined;
    this.mode = configured === "prompt" || follow === "prompt" ? "prompt" : "native";
    const native = follow === undefined ? base : withStrictTools(base, follow === "native-strict");
    this.active = this.mode === "prompt" ? middlewares.prompt(base) : middlewares.textFallback(native);
  }

  get model(): ChatModel {
    return this.active;
  }

  get effectiveMode(): "native" | "prompt" {
    return this.mode;
  }

  /** True when the session switched (only in "auto", only once). */
  switchToPrompt(): boolean {
    if (this.configured !== "auto" || this.mode === "prompt") return false;
    this.mode = "prompt";
    this.active = this.middlewares.prompt(this.base);
    return true;
  }
}
