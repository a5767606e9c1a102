import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { ChatModel, ChatRequest, StreamEvent } from "../llm/types.js";
import { LlmError } from "../llm/errors.js";

/** The gateway's Prometheus metrics, on a registry of its own (several gateways in one process keep apart). */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: "toolbridge_gateway_requests_total",
    help: "HTTP requests answered, by route and status code",
    labelNames: ["route", "status"] as const,
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({
    name: "toolbridge_gateway_turns_in_flight",
    help: "Chat completions running now",
    registers: [this.registry],
  });
  readonly rounds = new Counter({
    name: "toolbridge_gateway_model_rounds_total",
    help: "Requests to the upstream model made by chat completions",
    registers: [this.registry],
  });
  readonly toolCalls = new Counter({
    name: "toolbridge_gateway_tool_calls_total",
    help: "MCP tool calls, by server and outcome",
    labelNames: ["server", "outcome"] as const,
    registers: [this.registry],
  });
  readonly upstreamLatency = new Histogram({
    name: "toolbridge_gateway_upstream_seconds",
    help: "Time of one upstream model request, from sending to its last event",
    labelNames: ["model"] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly upstreamErrors = new Counter({
    name: "toolbridge_gateway_upstream_errors_total",
    help: "Upstream model requests that failed, by error code",
    labelNames: ["model", "code"] as const,
    registers: [this.registry],
  });
  /** What the web chat holds for the MCP Apps of open pages, read when the metrics are. */
  private appsHeld: () => Record<"pages" | "frames" | "calls", number> = () => ({ pages: 0, frames: 0, calls: 0 });
  readonly webApps = new Gauge({
    name: "toolbridge_gateway_web_apps_held",
    help: "What the web chat holds for MCP Apps of open pages: pages, app frames, and the apps' tool calls running",
    labelNames: ["kind"] as const,
    registers: [this.registry],
    collect: () => {
      for (const [kind, count] of Object.entries(this.appsHeld())) this.webApps.set({ kind }, count);
    },
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: "toolbridge_gateway_" });
  }

  countWebApps(read: () => Record<"pages" | "frames" | "calls", number>): void {
    this.appsHeld = read;
  }

  /** The model, with each request timed and its failures counted. */
  instrument(model: ChatModel): ChatModel {
    const metrics = this;
    return {
      provider: model.provider,
      modelId: model.modelId,
      ...(model.baseURL !== undefined ? { baseURL: model.baseURL } : {}),
      // The model's own iterator, watched: one more generator around it would cost each event of every answer a few promises.
      stream(request: ChatRequest): AsyncIterableIterator<StreamEvent> {
        const end = metrics.upstreamLatency.startTimer({ model: model.modelId });
        const events = model.stream(request)[Symbol.asyncIterator]();
        const failed = (error: unknown): never => {
          if (!request.signal?.aborted) {
            metrics.upstreamErrors.inc({ model: model.modelId, code: error instanceof LlmError ? error.code : "internal" });
          }
          throw error;
        };
        return {
          [Symbol.asyncIterator]() {
            return this;
          },
          next: () =>
            events.next().then((result) => {
              if (result.done === true) end();
              return result;
            }, failed),
          return: (value?: unknown) => (events.return ? events.return(value) : Promise.resolve({ done: true as const, value: undefined })),
        };
      },
    };
  }
}
