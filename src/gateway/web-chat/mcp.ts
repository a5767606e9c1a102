import { z } from "zod";
import type { Hub } from "../../mcp/hub.js";
import type { HubServerSource } from "../hub-server.js";

/**
 * What the web chat shows of the MCP servers beyond their tools: prompts (the `/` menu),
 * resources (`@`), argument completion, roots, and recent log lines. The gateway's hub may be
 * any object with the public GatewayHub shape; the optional parts are shown where it has them.
 */

export type WebChatHub = HubServerSource & Pick<Hub, "servers"> & Partial<Pick<Hub, "complete" | "roots" | "on" | "recentLog">>;

const LOG_LINES_PER_SERVER = 50;

/** The person's answer when the page asked them (the caller policy said ask): the question's id and the fingerprint shown with it. */
const ApprovedSchema = z.strictObject({ id: z.uuid(), fingerprint: z.string().min(1).max(100) });

export const PromptRequestSchema = z.strictObject({
  name: z.string().min(1).max(200),
  server: z.string().min(1).max(200),
  arguments: z.record(z.string().max(100), z.string().max(100_000)).optional(),
  approved: ApprovedSchema.optional(),
});

export const CompleteRequestSchema = z.strictObject({
  server: z.string().min(1).max(200),
  ref: z.discriminatedUnion("type", [z.strictObject({ type: z.literal("ref/prompt"), name: z.string().min(1).max(200) }), z.strictObject({ type: z.literal("ref/resource"), uri: z.string().min(1).max(2000) })]),
  argument: z.strictObject({ name: z.string().min(1).max(100), value: z.string().max(1000) }),
  context: z.strictObject({ arguments: z.record(z.string().max(100), z.string().max(1000)) }).optional(),
});

/** The server is named: the policy judges that server's resource, never one the hub would pick. */
export const ResourceRequestSchema = z.strictObject({ uri: z.string().min(1).max(2000), server: z.string().min(1).max(200), approved: ApprovedSchema.optional() });

/** Each server as the servers panel shows it: status, tools, its recent log lines (protocol and stderr). */
export function serversView(hub: WebChatHub) {
  return hub.servers().map(({ name, status, toolCount, resourceCount, promptCount, serverName, serverVersion, error, stderrTail }) => ({
    name,
    status,
    toolCount,
    resourceCount,
    promptCount,
    ...(serverName ? { serverName } : {}),
    ...(serverVersion ? { serverVersion } : {}),
    ...(error ? { error } : {}),
    log: [...(hub.recentLog?.(name) ?? []), ...(stderrTail ?? []).map((line) => `stderr: ${line}`)].slice(-LOG_LINES_PER_SERVER),
  }));
}

export async function promptsView(hub: WebChatHub) {
  return (await hub.prompts()).map(({ name, server, title, description, arguments: args }) => ({
    name,
    server,
    ...(title ? { title } : {}),
    ...(description ? { description } : {}),
    arguments: (args ?? []).map(({ name: arg, description: about, required }) => ({ name: arg, ...(about ? { description: about } : {}), required: required === true })),
  }));
}

export async function resourcesView(hub: WebChatHub) {
  const [resources, templates] = await Promise.all([hub.resources(), hub.resourceTemplates()]);
  return {
    resources: resources.map(({ uri, name, title, description, mimeType, server }) => ({ uri, name, server, ...(title ? { title } : {}), ...(description ? { description } : {}), ...(mimeType ? { mimeType } : {}) })),
    templates: templates.map(({ uriTemplate, name, description, server }) => ({ uriTemplate, name, server, ...(description ? { description } : {}) })),
  };
}
