import { join } from "node:path";
import type { Command } from "commander";
import type { Logger } from "../../gateway/log.js";
import { action, UsageError, warn } from "../errors.js";
import type { AgentFlags } from "../chat/session.js";
import { ROOT_OPTION } from "./hub-commands.js";
import { parseListenAddress, type ListenAddress } from "./serve.js";

interface GatewayFlags extends AgentFlags {
  listen?: ListenAddress;
  store?: string;
}

/** The variable with extra API keys (comma-separated), so keys need not be written in the config. */
export const API_KEYS_ENV = "TOOLBRIDGE_API_KEYS";

export function registerGateway(program: Command): void {
  program
    .command("gateway")
    .description("serve an OpenAI-compatible API (/v1/chat/completions, /v1/responses) that adds the MCP servers' tools to the model; also /mcp and the web chat at /")
    .option("--listen <[host:]port>", "address to listen on (default: gateway.listen, else 127.0.0.1:4000)", parseListenAddress)
    .option("-c, --config <file>", "the config file (default: ./toolbridge.json, then the user config)")
    .option("--base-url <url>", "the model server's OpenAI-compatible base URL")
    .option("--model <name>", "the default model (default: the config's, or the first the server lists)")
    .option("--provider <name>", "openai-compatible, vllm, ollama, openai, anthropic, gemini or local")
    .option("--tool-mode <mode>", "native, prompt or auto (native, prompt when refused)")
    .option("--max-iterations <n>", "rounds of tool calls per request before the model must answer")
    .option("--approve <mode>", "which tools run for API clients: ask (trusted servers and listed tools only), readonly, all (default: gateway.approve, else ask)")
    .option("--store <url>", "stored responses and per-key limits: redis://host:port to share them between replicas, file:/path, memory: (default: gateway.store, else a file in the state directory)")
    .option(...ROOT_OPTION)
    .action(action((flags: GatewayFlags) => gateway(flags)));
}

async function gateway(flags: GatewayFlags): Promise<void> {
  const running = await startGatewayCommand(flags);
  try {
    process.stderr.write(`toolbridge gateway listening on ${running.url} (OpenAI base URL ${running.url}/v1, model ${running.model}, store ${running.store})\n`);
    await new Promise<void>((resolve) => running.signal.addEventListener("abort", () => resolve(), { once: true }));
  } finally {
    await running.close();
  }
}

/** What a command that starts the gateway for one client of its own (`launch`) sets in place of the flags and the config. */
export interface PrivateGateway {
  /** The only key the gateway serves (the config's and TOOLBRIDGE_API_KEYS are not used). */
  apiKey: string;
  /** Leave SIGINT to the caller once the servers are up (the terminal gives it to the client too). */
  leaveSigint: boolean;
  log: Logger;
}

export interface RunningGateway {
  /** Its root URL (http://host:port). */
  url: string;
  /** The model it serves by default. */
  model: string;
  /** Where it stores responses, for the user to read. */
  store: string;
  /** Aborted by SIGINT (unless left to the caller) / SIGTERM / SIGHUP. */
  signal: AbortSignal;
  /** The exit code of the signal that aborted `signal`, if one did. */
  interruptedWith(): number | undefined;
  /** Stops the gateway, its store and the MCP servers. */
  close(): Promise<void>;
}

/**
 * Starts the gateway as `toolbridge gateway` does; given `only`, on a free loopback port with
 * that one key, its responses kept in memory, for the one client that is to use it.
 */
export async function startGatewayCommand(flags: GatewayFlags, only?: PrivateGateway): Promise<RunningGateway> {
  const env = process.env;
  // Loaded here, not at the top, so that `toolbridge --version` and `--help` load none of it.
  const [{ approvalMode, applyFlags }, { openTerminalHost }, { openSessionModel }, gatewayModule, { GatewayModels }, { turnSettings }, { collectKeys }, { jsonLogger }, stateModule, { DEFAULT_STORE_TTL_SECONDS, DEFAULT_STORE_BUDGET }, { stateDir }, { WebServerQuestions }, { webClientHandlers }] = await Promise.all([
    import("../chat/session.js"),
    import("../terminal-host.js"),
    import("../../host/session-model.js"),
    import("../../gateway/server.js"),
    import("../../gateway/models.js"),
    import("../../gateway/settings.js"),
    import("../../gateway/access.js"),
    import("../../gateway/log.js"),
    import("../../gateway/state/open-state.js"),
    import("../../gateway/state/state.js"),
    import("../../host/state-dir.js"),
    import("../../gateway/web-chat/server-questions.js"),
    import("../../gateway/web-chat/client-handlers.js"),
  ]);
  const approve = flags.approve === undefined ? undefined : approvalMode(flags.approve);
  // Servers' questions go to the web chat's page; sampling uses the gateway's models, made once the hub is up.
  const questions = new WebServerQuestions();
  let models: InstanceType<typeof GatewayModels> | undefined;
  const say = (line: string) => warn(line, env);
  // The session every front end gets from the host: servers, the model and its tool mode, the tool offer, the policy.
  const { session: host, signals } = await openTerminalHost(
    {
      env,
      ...(flags.config ? { config: flags.config } : {}),
      ...(flags.root ? { roots: flags.root } : {}),
      llm: (config) => applyFlags(config.llm ?? {}, flags),
      approve: (config) => approve ?? config.gateway?.approve ?? "ask",
      model: { say, onNotice: say },
      handlers: ({ config, llm, approval, knownModels }) =>
        webClientHandlers(questions, {
          approval,
          servers: config.mcpServers,
          models: () => models,
          knownModels,
          ...(llm.toolMode !== undefined ? { toolMode: llm.toolMode } : {}),
          ...(llm.maxTokens !== undefined ? { maxTokens: llm.maxTokens } : {}),
        }),
    },
    { onSignal: "abort", leaveSigint: only?.leaveSigint ?? false },
  );
  const { llm } = host;
  const closing: (() => Promise<void>)[] = [() => host.close()];
  const close = async () => {
    for (const step of [...closing].reverse()) await step();
  };
  try {
    const settings = host.config.gateway ?? {};
    const listen = only ? { host: "127.0.0.1", port: 0 } : (flags.listen ?? listenFromConfig(settings.listen, gatewayModule.DEFAULT_GATEWAY_PORT));
    const apiKeys = only ? [only.apiKey] : collectKeys(settings.apiKeys, env[API_KEYS_ENV]);
    if (!gatewayModule.isLoopback(listen.host)) {
      if (apiKeys.length === 0) throw new UsageError(`listening on ${listen.host} needs API keys: set gateway.apiKeys in the config or ${API_KEYS_ENV}`);
      warn(`the gateway listens on ${listen.host}: other machines can reach it; only requests with an API key are served`, env);
    }
    const log = only?.log ?? jsonLogger(process.stderr);
    const limits = {
      maxConcurrentPerKey: settings.maxConcurrentPerKey ?? gatewayModule.DEFAULT_MAX_CONCURRENT_PER_KEY,
      ...(settings.maxRequestsPerMinute ? { maxRequestsPerMinute: settings.maxRequestsPerMinute } : {}),
    };
    const store = only ? "memory:" : (flags.store ?? settings.store);
    let state;
    try {
      state = await stateModule.openGatewayState({
        ...(store !== undefined ? { store } : {}),
        defaultDirectory: join(stateDir(env), "gateway-store.db"),
        ttlSeconds: settings.storeTtlSeconds ?? DEFAULT_STORE_TTL_SECONDS,
        budget: {
          maxBytes: settings.storeMaxBytes ?? DEFAULT_STORE_BUDGET.maxBytes,
          maxBytesPerKey: settings.storeMaxBytesPerKey ?? DEFAULT_STORE_BUDGET.maxBytesPerKey,
        },
        limits,
        log,
      });
    } catch (error) {
      if (error instanceof stateModule.StoreUrlError) throw new UsageError(`${flags.store !== undefined ? "--store" : "gateway.store"}: ${error.message}`);
      throw error;
    }
    const opening = state;
    closing.push(() => opening.close());
    models = new GatewayModels(host.model, llm, env, settings.modelAliases, (other) => openSessionModel(other, env, { say, onNotice: say }));
    const known = models;
    const gateway = await gatewayModule.startGateway({
      hub: host.hub,
      models,
      questions,
      settings: { ...turnSettings(host.config, host.settings, { approve: host.approve, skills: host.hub }), probedMode: (model) => known.probedMode(model) },
      host: listen.host,
      port: listen.port,
      apiKeys,
      ...(settings.corsOrigins ? { corsOrigins: settings.corsOrigins } : {}),
      ...(settings.allowedHosts ? { allowedHosts: settings.allowedHosts } : {}),
      ...(settings.maxRequestBytes ? { maxRequestBytes: settings.maxRequestBytes } : {}),
      ...(settings.approvalTimeoutSeconds ? { approvalTimeoutMs: settings.approvalTimeoutSeconds * 1000 } : {}),
      ...(settings.appCspAllowLocal ? { appCspAllowLocal: true } : {}),
      ...limits,
      state,
      log,
    });
    closing.push(() => gateway.close());
    return { url: gateway.url, model: host.model.model.modelId, store: state.description, signal: signals.signal, interruptedWith: () => signals.interruptedWith(), close };
  } catch (error) {
    await close();
    throw error;
  }
}

function listenFromConfig(value: string | undefined, defaultPort: number): ListenAddress {
  if (value === undefined) return { host: "127.0.0.1", port: defaultPort };
  try {
    return parseListenAddress(value);
  } catch (error) {
    throw new UsageError(`gateway.listen: "${value}": ${error instanceof Error ? error.message : String(error)}`);
  }
}
