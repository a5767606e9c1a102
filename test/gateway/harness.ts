import OpenAI from "openai";
import { ApprovalPolicy, type ApprovalMode } from "../../src/agent/approval.js";
import { bundledServer } from "../../src/config/bundled-servers.js";
import type { LlmConfig, ServerConfig, ToolMode } from "../../src/config/schema.js";
import { GatewayModels } from "../../src/gateway/models.js";
import { webClientHandlers } from "../../src/gateway/web-chat/client-handlers.js";
import { startGateway, type GatewayHandle, type GatewayOptions } from "../../src/gateway/server.js";
import { WebServerQuestions } from "../../src/gateway/web-chat/server-questions.js";
import { createChatModel } from "../../src/llm/create-model.js";
import { Hub } from "../../src/mcp/hub.js";
import { startGeminiServer } from "../support/gemini-server.js";
import { DEFAULT_VLLM_MODEL, startVllmServer, type VllmReply, type VllmServer, type VllmServerOptions } from "../support/vllm-server.js";

/**
 * TEST INFRASTRUCTURE: a gateway on a free loopback port, in front of the scripted vLLM server,
 * with the bundled time server (untrusted unless `trustTime`) as its MCP server.
 */
export interface Harness {
  upstream: VllmServer;
  hub: Hub;
  gateway: GatewayHandle;
  /** The gateway's OpenAI base URL (…/v1). */
  baseURL: string;
  close(): Promise<void>;
}

export interface HarnessOptions extends Partial<Omit<GatewayOptions, "hub" | "models" | "settings">> {
  replies?: VllmReply[];
  respond?: VllmServerOptions["respond"];
  /** false: the upstream refuses native tools (vLLM without a tool parser). */
  toolsEnabled?: boolean;
  toolMode?: ToolMode;
  approve?: ApprovalMode;
  trustTime?: boolean;
  servers?: Record<string, ServerConfig>;
  aliases?: Record<string, string>;
  /** false: the upstream has no /tokenize (a server other than vLLM). */
  tokenize?: boolean;
  /** The roots the servers are offered (directories); default the current directory. */
  roots?: string[];
  /** The gateway's model, in place of the scripted vLLM server's (a scripted Anthropic or Gemini server's). */
  llm?: LlmConfig;
  /** Turn settings read from a config (turnSettings), over the harness's own. */
  turnSettings?: Partial<GatewayOptions["settings"]>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const { replies, respond, toolsEnabled, toolMode, approve, trustTime, servers, aliases, tokenize, roots, llm: otherLlm, turnSettings, ...gatewayOptions } = options;
  const upstream = await startVllmServer({ replies: replies ?? [], ...(respond ? { respond } : {}), toolsEnabled: toolsEnabled ?? true, otherModels: ["other-model"], ...(tokenize !== undefined ? { tokenize } : {}) });
  const config = servers ?? { time: { ...bundledServer("time"), trust: trustTime ?? true } };
  const llm: LlmConfig = otherLlm ?? { provider: "vllm", baseURL: upstream.url, model: DEFAULT_VLLM_MODEL };
  const models = new GatewayModels(await createChatModel(llm, {}), llm, {}, aliases ?? {});
  // As `toolbridge gateway` does: servers' questions go to the web chat's page, sampling to the gateway's models.
  const questions = new WebServerQuestions();
  const hub = await Hub.connect(config, { ...webClientHandlers(questions, { approval: { policy: new ApprovalPolicy({ mode: approve ?? "ask", servers: config }) }, servers: config, models: () => models }), ...(roots ? { roots } : {}) });
  const gateway = await startGateway({
    port: 0,
    ...gatewayOptions,
    hub,
    questions,
    models,
    settings: { approve: approve ?? "ask", servers: config, ...(toolMode ? { toolMode } : {}), ...turnSettings },
  });
  return {
    upstream,
    hub,
    gateway,
    baseURL: `${gateway.url}/v1`,
    close: async () => {
      await gateway.close();
      await hub.close();
      await upstream.close();
    },
  };
}

export const GEMINI_3 = "gemini-3-flash-preview";
export const WEATHER_SIGNATURE = "CiQBcsjaf+Sig/x==";

/**
 * A gateway in front of the scripted Gemini server as a Gemini 3 model, which refuses a call
 * given back without its thought signature; it first calls get_weather for Taipei (id `fc-1`,
 * signed WEATHER_SIGNATURE), then answers `answer`. `signedCall()`: the call as the second
 * request gave it back.
 */
export async function startGemini3Harness(answer: string): Promise<Harness & { signedCall(): unknown }> {
  const gemini = await startGeminiServer({
    replies: [{ functionCalls: [{ name: "get_weather", args: { city: "Taipei" }, id: "fc-1", thoughtSignature: WEATHER_SIGNATURE }] }, { text: answer }],
  });
  const harness = await startHarness({ llm: { provider: "gemini", baseURL: gemini.url, model: GEMINI_3, apiKey: "test-key" } });
  return {
    ...harness,
    signedCall: () => (gemini.requests[1]?.body.contents as Array<{ parts: Array<Record<string, unknown>> }>).flatMap((content) => content.parts).find((part) => part.functionCall),
    close: async () => {
      await harness.close();
      await gemini.close();
    },
  };
}

/** The real openai SDK pointed at the harness's gateway, with no retries so a failure shows at once. */
export function openaiClient(h: Harness, apiKey = "none"): OpenAI {
  return new OpenAI({ baseURL: h.baseURL, apiKey, maxRetries: 0 });
}
