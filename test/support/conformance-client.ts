/**
 * The hub as a client for the MCP conformance suite's client scenarios:
 *   conformance client --command "node --import tsx test/support/conformance-client.ts" --scenario NAME
 * The suite appends the scenario server's URL as the last argument, names the scenario in
 * MCP_CONFORMANCE_SCENARIO and passes pre-registered credentials in MCP_CONFORMANCE_CONTEXT.
 * The browser of the OAuth scenarios is a fetch that follows the authorization server's redirect
 * to the hub's loopback receiver. Exit code 0 when the hub did what the scenario asks.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OAuthConfig } from "../../src/config/oauth.js";
import { HubError } from "../../src/mcp/errors.js";
import { Hub, type HubOptions } from "../../src/mcp/hub.js";
import type { HubTool } from "../../src/mcp/types.js";

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
/** What the suite's scenarios that pre-register a client hand over. */
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  /** The calls some 2026-07-28 scenarios ask for (http-custom-headers). */
  toolCalls?: ToolCall[];
  /** The workload identity token of the workload-identity scenario. */
  valid_jwt?: string;
};
/** The client id metadata document URL the suite expects where the server supports such documents. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
/** A login and a retry per refusal, at most this many: a server that always wants more scope is given up on. */
const MAX_LOGINS = 3;

interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}
const call = (name: string, args: Record<string, unknown> = {}): ToolCall => ({ name, arguments: args });

/** What each scenario wants done once connected: the tools to call, in order, given the hub's tools. */
const calls: Record<string, (tools: readonly HubTool[]) => ToolCall[]> = {
  initialize: () => [],
  tools_call: () => [call("add_numbers", { a: 5, b: 3 })],
  "elicitation-sep1034-client-defaults": () => [call("test_client_elicitation_defaults")],
  "sse-retry": () => [call("test_reconnection")],
  "sep-2322-client-request-state": () =>
    ["test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"].map((name) => call(name)),
  // Every tool the hub offers, as a model might call it: the suite fails any call to a tool it declared invalid.
  "http-invalid-tool-headers": (tools) => tools.map((tool) => call(tool.name, { region: "us-east1" })),
  // Hands back the schema as the hub listed it, for the suite to compare with what it sent.
  "json-schema-2020-12-preservation": (tools) => [
    call("json_schema_echo", { schema: tools.find((tool) => tool.originalName === "json_schema_2020_12_tool")?.inputSchema ?? {} }),
  ],
};

function oauthSettings(): OAuthConfig {
  return {
    clientMetadataUrl: CLIENT_METADATA_URL,
    ...(context.client_id !== undefined ? { clientId: context.client_id } : {}),
    ...(context.client_secret !== undefined ? { clientSecret: context.client_secret } : {}),
    ...(context.private_key_pem !== undefined ? { privateKey: context.private_key_pem } : {}),
    ...(context.signing_algorithm !== undefined ? { signingAlgorithm: context.signing_algorithm } : {}),
    ...(scenario.startsWith("auth/client-credentials") ? { grantType: "client_credentials" as const } : {}),
    ...(context.valid_jwt !== undefined ? { grantType: "jwt_bearer" as const, assertion: context.valid_jwt } : {}),
  };
}

async function browse(authorizationUrl: URL): Promise<void> {
  await (await fetch(authorizationUrl)).text();
}

/**
 * The skills scenarios (SEP-2640): the hub listed the skills when it connected (and must have
 * read no file then). The verify scenarios serve a tampered SKILL.md: each skill is loaded as a
 * model would, and only a skill that passed verification has its other files read.
 */
async function loadSkills(hub: Hub): Promise<number> {
  if (scenario === "sep-2640-client-no-prefetch") return 0;
  for (const skill of hub.skills()) {
    try {
      const loaded = await hub.loadSkill(skill.name, { server: skill.server });
      for (const file of loaded.otherFiles) await hub.loadSkill(skill.name, { server: skill.server, file });
    } catch (error) {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
  return 0;
}

async function main(oauthDir: string): Promise<number> {
  if (!url || !/^https?:\/\//.test(url)) {
    process.stderr.write("usage: conformance-client.ts URL (MCP_CONFORMANCE_SCENARIO names the scenario)\n");
    return 2;
  }
  const options: HubOptions = {
    clientInfo: { name: "toolbridge-conformance", version: "1.0.0" },
    // Generous: in a suite run on a busy machine the scenario servers (one process) stall for seconds;
    // the suite's own per-scenario timeout still bounds the whole client.
    defaultStartupTimeoutMs: 30_000,
    defaultToolTimeoutMs: 30_000,
    // Accept with no fields filled in: the client must complete the form with the schema's defaults.
    onElicitation: async () => ({ action: "accept", content: {} }),
    oauthDir,
  };
  const hub = await Hub.connect({ server: { url, oauth: oauthSettings() } }, options);
  let logins = 0;
  const logIn = async () => {
    logins++;
    await hub.login("server", browse, 10_000);
  };
  try {
    // As a user would: again when the server still wants one (it moved to another authorization server meanwhile).
    while (hub.servers()[0]?.needsLogin && logins < MAX_LOGINS) await logIn();
    const [state] = hub.servers();
    if (state?.status !== "connected") {
      process.stderr.write(`could not connect: ${state?.error ?? "unknown"}\n`);
      return 1;
    }
    if (scenario.startsWith("sep-2640-")) return await loadSkills(hub);
    const first = hub.tools()[0]?.name;
    const todo = context.toolCalls ?? calls[scenario]?.(hub.tools()) ?? (first ? [call(first)] : []);
    let failed = false;
    for (const { name, arguments: args } of todo) {
      for (;;) {
        try {
          const result = await hub.callTool(name, args);
          process.stdout.write(`${JSON.stringify(result.content)}\n`);
          failed ||= result.isError === true;
          break;
        } catch (error) {
          if (!(error instanceof HubError && error.code === "needs-login") || logins >= MAX_LOGINS) throw error;
          await logIn();
        }
      }
    }
    return failed ? 1 : 0;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await hub.close();
  }
}

const oauthDir = mkdtempSync(join(tmpdir(), "toolbridge-conformance-oauth-"));
process.exitCode = await main(oauthDir).finally(() => rmSync(oauthDir, { recursive: true, force: true }));
