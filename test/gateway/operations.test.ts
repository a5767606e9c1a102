import { join } from "node:path";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { bundledServer } from "../../src/config/bundled-servers.js";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { startHarness, type Harness } from "./harness.js";

/** What operators and browsers see: health, readiness, metrics, CORS and the DNS-rebinding guard. */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("operations", () => {
  it("is healthy, and ready once every server is connected", async () => {
    harness = await startHarness();
    expect((await fetch(`${harness.gateway.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${harness.gateway.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready", servers: 1 });
  });

  it("is not ready while a server is down, and names it", async () => {
    const broken = { command: process.execPath, args: [join(import.meta.dirname, "../fixtures/servers/exit-at-once.mjs")] };
    harness = await startHarness({ servers: { time: bundledServer("time"), broken } });
    const ready = await fetch(`${harness.gateway.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: "not-ready", notConnected: [{ name: "broken" }] });
  });

  it("exports requests, rounds, tool calls, upstream latency and upstream errors to Prometheus", async () => {
    harness = await startHarness({ replies: [{ toolCalls: [{ name: "get-date", arguments: {} }] }, { text: "today" }, { kind: "error", status: 400, message: "no such thing" }] });
    const client = new OpenAI({ baseURL: harness.baseURL, apiKey: "none", maxRetries: 0 });
    await client.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "date?" }] });
    await expect(client.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "again?" }] })).rejects.toThrow("no such thing");
    const metrics = await (await fetch(`${harness.gateway.url}/metrics`)).text();
    expect(metrics).toContain('toolbridge_gateway_requests_total{route="POST /v1/chat/completions",status="200"} 1');
    // Three requests to the model: two answered, timed; one refused, counted as an error.
    expect(metrics).toContain("toolbridge_gateway_model_rounds_total 3");
    expect(metrics).toContain('toolbridge_gateway_tool_calls_total{server="time",outcome="ok"} 1');
    expect(metrics).toMatch(/toolbridge_gateway_upstream_seconds_count\{model="Qwen\/Qwen3-8B"\} 2\n/);
    expect(metrics).toMatch(/toolbridge_gateway_upstream_errors_total\{model="Qwen\/Qwen3-8B",code="[a-z-]+"\} 1\n/);
  });

  it("sends CORS headers to configured origins only, and refuses foreign origins on loopback", async () => {
    harness = await startHarness({ corsOrigins: ["https://chat.example.com"] });
    const preflight = await fetch(`${harness.baseURL}/chat/completions`, {
      method: "OPTIONS",
      headers: { origin: "https://chat.example.com", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://chat.example.com");
    const allowed = await fetch(`${harness.baseURL}/models`, { headers: { origin: "https://chat.example.com" } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://chat.example.com");
    const foreign = await fetch(`${harness.baseURL}/models`, { headers: { origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
  });
});
