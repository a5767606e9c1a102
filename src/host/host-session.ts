import { Agent } from "../agent/agent.js";
import { ApprovalPolicy, type Approval, type ApprovalMode, type ApproveCallback } from "../agent/approval.js";
import type { ResolvedConfig } from "../config/load.js";
import type { LlmConfig } from "../config/schema.js";
import type { CreateChatModelOptions } from "../llm/create-model.js";
import type { ChatModel, Message } from "../llm/types.js";
import type { Hub } from "../mcp/hub.js";
import type { ClientHandlers } from "../mcp/types.js";
import { openHost, type OpenedHost, type OpenHostOptions } from "./open-host.js";
import { openSessionModel, type SessionModel } from "./session-model.js";
import { sessionSettings, type SessionSettings } from "./session-settings.js";

type Env = Readonly<Record<string, string | undefined>>;

/** What a session's servers' requests (sampling, elicitation) are answered with. */
export interface SessionHandlerInputs {
  config: ResolvedConfig;
  /** The model section as the front end left it. */
  llm: LlmConfig;
  /** The session's approval: the one policy its tools and its servers' sampling go through. */
  approval: Approval;
  /** The session's model as it is when asked (a switch of model included); waits for the session to open. */
  model: () => Promise<ChatModel>;
  /** The models sampling may name: the session's, and each server's `sampling.model`. */
  knownModels: readonly string[];
}

/** How the model is made: lines a person should see (a probe under way, a stand-in model), download progress. */
export type SessionModelOptions = Omit<CreateChatModelOptions, "strictMemory"> & { say?: (line: string) => void };

export interface HostSessionOptions extends Omit<OpenHostOptions, "handlers" | "onHub"> {
  /** The config's model section as the front end's flags leave it; the config's by default. */
  llm?: (config: ResolvedConfig) => LlmConfig;
  /** Which tools run unasked (`--approve`, or one the config sets, given it); "ask" by default. */
  approve?: ApprovalMode | ((config: ResolvedConfig) => ApprovalMode);
  /** Who decides about a tool the policy does not allow; without it, such a tool is refused. */
  ask?: ApproveCallback;
  model?: SessionModelOptions;
  handlers?: (inputs: SessionHandlerInputs) => ClientHandlers;
}

/** A started host: what openHost gives, and how it is stopped. */
export type OpenedHostHandle = OpenedHost<SessionModel> & { close(): Promise<void> };

/** Starts the config's servers and the model (openHost, or a front end's own wrapping of it: signals, say). */
export type HostOpener = (options: OpenHostOptions, alongside: (config: ResolvedConfig) => Promise<SessionModel>) => Promise<OpenedHostHandle>;

const openHostAlone: HostOpener = async (options, alongside) => {
  const opened = await openHost(options, alongside);
  return { ...opened, close: () => opened.hub.close() };
};

/**
 * One session of any front end, made in one place from a config: the servers connected, the
 * model and its tool mode (openSessionModel), the tool offer and model settings every agent
 * runs with (sessionSettings: filters, tool search, prompt format, hooks), the servers'
 * skills, and one approval policy for the session's tools and its servers' sampling. A front
 * end adds only its own: who is asked, what signals do, how its wire format reads an agent.
 */
export class HostSession {
  private constructor(
    private readonly opened: OpenedHostHandle,
    readonly llm: LlmConfig,
    readonly settings: SessionSettings,
    /** The approval mode the session's policy started with. */
    readonly approve: ApprovalMode,
    readonly approval: Approval,
    /** The model of the session now (see switchModel). */
    public model: SessionModel,
    private readonly env: Env,
    private readonly modelOptions: SessionModelOptions,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /**
   * Servers that fail to start are warned about (the session goes on without them); one named
   * by `only` must start. `open` is how the host starts, the library's openHost by default.
   */
  static async open(options: HostSessionOptions, open: HostOpener = openHostAlone): Promise<HostSession> {
    const { llm: llmFor, approve: approveFor = "ask", ask, model: modelOptions = {}, handlers, ...hostOptions } = options;
    const env = options.env ?? process.env;
    let llm: LlmConfig = {};
    let approval: Approval | undefined;
    const approveOf = (config: ResolvedConfig) => (typeof approveFor === "function" ? approveFor(config) : approveFor);
    // Sampling waits for the session's model (a server may ask while the model is still being probed).
    let sessionReady: (session: HostSession) => void = () => undefined;
    const ready = new Promise<HostSession>((resolve) => (sessionReady = resolve));
    const opened = await open(
      {
        ...hostOptions,
        // Called after the model's making has begun, so `llm` holds the front end's settings by then.
        handlers: (config) => {
          approval = sessionApproval(config, approveOf(config));
          return handlers?.({ config, llm, approval, model: async () => (await ready).model.model, knownModels: samplingModels(config, llm) }) ?? {};
        },
      },
      (config) => {
        llm = llmFor?.(config) ?? config.llm ?? {};
        return openSessionModel(llm, env, { say: () => undefined, ...modelOptions });
      },
    );
    const approve = approveOf(opened.config);
    const used = approval ?? sessionApproval(opened.config, approve);
    if (ask) used.ask = ask;
    const session = new HostSession(opened, llm, sessionSettings(opened.config, llm, env), approve, used, opened.alongside, env, modelOptions, options.signal);
    sessionReady(session);
    return session;
  }

  get hub(): Hub {
    return this.opened.hub;
  }

  get config(): ResolvedConfig {
    return this.opened.config;
  }

  /** The config file read; undefined when the built-in default is in use. */
  get configPath(): string | undefined {
    return this.opened.configPath;
  }

  /** Settles when every server has connected or failed. */
  get ready(): Promise<void> {
    return this.opened.ready;
  }

  /**
   * An agent of this session over its current model, continuing `messages`: the session's
   * tools, skills, settings and approval. `signal` ends its turns (the host stopping).
   */
  agent(messages: readonly Message[] = [], signal = this.signal): Agent {
    return new Agent({
      model: this.model.model,
      tools: this.hub,
      skills: this.hub,
      approval: this.approval,
      messages,
      ...(signal ? { signal } : {}),
      ...this.settings,
      ...(this.model.probedMode ? { probedMode: this.model.probedMode } : {}),
    });
  }

  /** Makes `name` the session's model, as the first was made (its tool mode, its cached probe). */
  async switchModel(name: string): Promise<void> {
    this.model = await openSessionModel({ ...this.llm, model: name }, this.env, { say: () => undefined, ...this.modelOptions });
  }

  close(): Promise<void> {
    return this.opened.close();
  }
}

/** The session's one approval policy: `approve`, the servers' trust and lists, the config's allow and deny rules. */
export function sessionApproval(config: ResolvedConfig, approve: ApprovalMode): Approval {
  return { policy: new ApprovalPolicy({ mode: approve, servers: config.mcpServers, ...(config.permissions ? { rules: config.permissions } : {}) }) };
}

/** The models a server's sampling request may name: the session's, and each server's `sampling.model`. */
export function samplingModels(config: ResolvedConfig, llm: LlmConfig): string[] {
  return [...(llm.model ? [llm.model] : []), ...Object.values(config.mcpServers).flatMap((server) => (server.sampling?.model ? [server.sampling.model] : []))];
}
