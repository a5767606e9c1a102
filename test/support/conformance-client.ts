/**
 * The hub as a client for the MCP conformance suite's client scenarios:
 *   conformance client --command "node --import tsx test/support/conformance-client.ts" --scenario NAME
 * The suite appends the scenario server's URL as the last argument and names the scenario
 * in MCP_CONFORMANCE_SCENARIO. Exit code 0 when the hub did what the scenario asks.
 */
import { Hub } from "../../src/mcp/hub.js";
import type { HubOptions } from "../../src/mcp/hub.js";

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";

/** What each scenario wants done once connected: the tool to call and its arguments. */
const calls: Record<string, { tool: string; args: Record<string, unknown> } | undefined> = {
  initialize: undefined,
  tools_call: { tool: "add_numbers", args: { a: 5, b: 3 } },
  "elicitation-sep1034-client-defaults": { tool: "test_client_elicitation_defaults", args: {} },
  "sse-retry": { tool: "test_reconnection", args: {} },
};

async function main(): Promise<number> {
  if (!url || !/^https?:\/\//.test(url)) {
    process.stderr.write("usage: conformance-client.ts URL (MCP_CONFORMANCE_SCENARIO names the scenario)\n");
    return 2;
  }
  const options: HubOptions = {
    clientInfo: { name: "toolbridge-conformance", version: "1.0.0" },
    defaultStartupTimeoutMs: 10_000,
    defaultToolTimeoutMs: 10_000,
    // Accept with no fields filled in: the client must complete the form with the schema's defaults.
    onElicitation: async () => ({ action: "accept", content: {} }),
  };
  const hub = await Hub.connect({ server: { url } }, options);
  try {
    const [state] = hub.servers();
    if (state?.status !== "connected") {
      process.stderr.write(`could not connect: ${state?.error ?? "unknown"}\n`);
      return 1;
    }
    const call = scenario in calls ? calls[scenario] : { tool: hub.tools()[0]?.name ?? "", args: {} };
    if (call && call.tool) {
      const result = await hub.callTool(call.tool, call.args);
      process.stdout.write(`${JSON.stringify(result.content)}\n`);
      if (result.isError) return 1;
    }
    return 0;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await hub.close();
  }
}

process.exitCode = await main();
