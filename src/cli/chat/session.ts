import type { Agent } from "../../agent/agent.js";
import { APPROVAL_MODES, type ApprovalMode, type ApproveCallback } from "../../agent/approval.js";
import { redactUrl } from "../../config/redact.js";
import { ProviderSchema, ToolModeSchema, type LlmConfig } from "../../config/schema.js";
import { openAIFamilyApiKey } from "../../llm/create-model.js";
import { listModelInfo, type ListedModel } from "../../llm/discovery.js";
import type { Hub } from "../../mcp/hub.js";
import type { HostSession, SessionModelOptions } from "../../host/host-session.js";
import { cliClientHandlers, namedModels } from "../client-handlers.js";
import { downloadProgress } from "../download-progress.js";
import { runtimeProgress } from "../runtime-offer.js";
import { UsageError, warn } from "../errors.js";
import type { OpenHubOptions } from "../open-hub.js";
import { resumedChanges, type SavedWith } from "./resumed-changes.js";
import { PrompterSlot } from "../server-questions/prompter.js";
import { colorsFor } from "../render/colors.js";
import { openTerminalHost, type TerminalHost } from "../terminal-host.js";
import { UsageMeter } from "./usage-meter.js";

/** How long the model server may take to list its models (for /model and the context gauge). */
const LISTING_TIMEOUT_MS = 5000;

/** The flags `run` and `chat` share. */
export interface AgentFlags {
  config?: string;
  baseUrl?: string;
  model?: string;
  provider?: string;
  toolMode?: string;
  maxIterations?: string;
  approve?: string;
  verbose?: boolean;
  /** `--root DIR`, repeatable. */
  root?: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** How a front end opens a session: what signals do (see openHub), who hears start-up, who is asked about tools. */
export type SessionOptions = Pick<OpenHubOptions, "onSignal" | "leaveSigint" | "onHubEvent" | "background"> & {
  ask?: ApproveCallback;
  /** Asked, on first use of --provider local, whether to install llama.cpp's runtime (see runtimeOffer). */
  offerRuntimeInstall?: () => Promise<boolean>;
};

/**
 * The host's session (src/host/host-session.ts) on a terminal, for one `run` or `chat`: the
 * process's signals, servers' questions asked on the terminal, the token meter. `close()`
 * stops the servers.
 */
export class AgentSession {
  /** The chat's token accounting and context gauge. */
  readonly usage = new UsageMeter(
    () => this.agent.model.modelId,
    () => this.listedModels(),
  );

  private constructor(
    private readonly host: HostSession,
    private readonly signals: TerminalHost["signals"],
    private readonly env: Env,
    public agent: Agent,
    /** Who servers' questions (elicitation, sampling approval) go to: set by the front end. */
    readonly prompts: PrompterSlot,
  ) {}

  /**
   * Servers that fail to start are warned about on stderr (the session goes on without them).
   * `options` says what signals do, whether to return before the servers have connected
   * (`background`, see openHub) and who decides about a tool the policy does not allow
   * (`ask`; without it such a tool is refused).
   */
  static async open(flags: AgentFlags, env: Env, options: SessionOptions): Promise<AgentSession> {
    const { ask, offerRuntimeInstall, onSignal, leaveSigint, ...start } = options;
    const prompts = new PrompterSlot();
    const { session: host, signals } = await openTerminalHost(
      {
        ...start,
        env,
        ...(flags.config ? { config: flags.config } : {}),
        ...(flags.root ? { roots: flags.root } : {}),
        llm: (config) => applyFlags(config.llm ?? {}, flags),
        approve: approvalMode(flags.approve),
        ...(ask ? { ask } : {}),
        model: { ...modelOptions(env), ...(offerRuntimeInstall ? { offerRuntimeInstall } : {}) },
        handlers: ({ config, llm, approval, model, knownModels }) =>
          cliClientHandlers({
            config,
            llm,
            approval,
            knownModels,
            model: namedModels(llm, env, model),
            slot: prompts,
            colors: colorsFor(process.stderr, env),
            warn: (line) => warn(line, env),
          }),
      },
      { ...(onSignal ? { onSignal } : {}), ...(leaveSigint ? { leaveSigint } : {}) },
    );
    // A signal to toolbridge ends the turn under way, whatever cancels turns in the UI.
    return new AgentSession(host, signals, env, host.agent([], signals.signal), prompts);
  }

  get hub(): Hub {
    return this.host.hub;
  }

  get llm(): LlmConfig {
    return this.host.llm;
  }

  /** The servers configured and enabled, up or not: what a saved conversation records, and a resumed one is compared with. */
  serverNames(): string[] {
    return this.hub
      .servers()
      .filter((server) => server.status !== "disabled")
      .map((server) => server.name);
  }

  /** How the servers and their tools differ from those a resumed conversation was saved with (see resumedChanges). */
  resumedChanges(saved: SavedWith): string | undefined {
    return resumedChanges(saved, { servers: this.serverNames(), tools: this.hub.tools().map((tool) => tool.name) });
  }

  /** Settles when every server has connected or failed. */
  get ready(): Promise<void> {
    return this.host.ready;
  }

  /** Aborted by the signals the session handles. */
  get signal(): AbortSignal {
    return this.signals.signal;
  }

  /** The exit code of the signal that aborted `signal` (130 / 143), if one did. */
  interruptedWith(): number | undefined {
    return this.signals.interruptedWith();
  }

  /** Where requests go, for display. */
  get endpoint(): { url: string; model: string } {
    return { url: this.agent.model.baseURL ? redactUrl(this.agent.model.baseURL) : "the model server", model: this.agent.model.modelId };
  }

  /** The config file read; undefined when none was found and the bundled servers are used. */
  get configPath(): string | undefined {
    return this.host.configPath;
  }

  /**
   * The models the model server lists, with their context length where it says. Empty for
   * providers with no OpenAI-style listing; rejects when the server cannot be asked.
   */
  async listedModels(): Promise<ListedModel[]> {
    const { baseURL, provider } = this.agent.model;
    if (baseURL === undefined || provider === "anthropic" || provider === "gemini") return [];
    return listModelInfo(baseURL, openAIFamilyApiKey(this.llm, this.env), LISTING_TIMEOUT_MS);
  }

  /** Switches the model and keeps the conversation. */
  async switchModel(model: string): Promise<void> {
    await this.host.switchModel(model);
    this.agent = this.host.agent(this.agent.messages, this.signal);
  }

  close(): Promise<void> {
    return this.host.close();
  }
}

/**
 * On the terminal: the probe's lines and a notice when the local model stands in on stderr, and
 * progress lines for a model being downloaded and for llama.cpp's runtime being installed.
 */
function modelOptions(env: Env): SessionModelOptions {
  const progress = downloadProgress();
  const installing = runtimeProgress(process.stderr);
  return {
    say: (line) => warn(line, env),
    onNotice: (line) => warn(line, env),
    ...(progress ? { onDownloadProgress: progress } : {}),
    ...(installing ? { onRuntimeProgress: installing } : {}),
  };
}

/** `--approve`: ask by default. */
export function approvalMode(flag: string | undefined): ApprovalMode {
  if (flag === undefined) return "ask";
  if ((APPROVAL_MODES as readonly string[]).includes(flag)) return flag as ApprovalMode;
  throw new UsageError(`--approve: "${flag}" is not one of ${APPROVAL_MODES.join(", ")}`);
}

/** Flags win over the config file. */
export function applyFlags(llm: LlmConfig, flags: AgentFlags): LlmConfig {
  const out: LlmConfig = { ...llm };
  if (flags.baseUrl !== undefined) {
    if (!URL.canParse(flags.baseUrl)) throw new UsageError(`--base-url: "${flags.baseUrl}" is not a URL (e.g. http://127.0.0.1:8000/v1)`);
    out.baseURL = flags.baseUrl;
  }
  if (flags.model !== undefined) out.model = flags.model;
  if (flags.provider !== undefined) {
    const provider = ProviderSchema.safeParse(flags.provider);
    if (!provider.success) throw new UsageError(`--provider: "${flags.provider}" is not one of ${ProviderSchema.options.join(", ")}`);
    out.provider = provider.data;
  }
  if (flags.toolMode !== undefined) {
    const mode = ToolModeSchema.safeParse(flags.toolMode);
    if (!mode.success) throw new UsageError(`--tool-mode: "${flags.toolMode}" is not one of ${ToolModeSchema.options.join(", ")}`);
    out.toolMode = mode.data;
  }
  if (flags.maxIterations !== undefined) {
    const n = Number(flags.maxIterations);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--max-iterations: "${flags.maxIterations}" is not a whole number of 1 or more`);
    out.maxIterations = n;
  }
  return out;
}
