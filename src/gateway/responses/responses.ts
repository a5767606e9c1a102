import type { ServerResponse } from "node:http";
import type { TurnResult } from "../../agent/events.js";
import type { ChatModel, ToolDefinition } from "../../llm/types.js";
import { toolIdentity } from "../../agent/approval.js";
import { toToolDefinition } from "../../agent/tool-host.js";
import type { HubTool } from "../../mcp/types.js";
import { HttpError, sendJson, turnFailure } from "../http.js";
import type { Logger } from "../log.js";
import { WireError } from "../openai-wire.js";
import { selectMcpTools } from "./mcp-tools.js";
import { resolveReferences } from "./references.js";
import { mcpCallOutput, ResponseOutput } from "./output.js";
import { clientFunctionTools, inputItems, type ClientTools, McpApprovalRequestSchema, McpApprovalResponseSchema, newId, responseFormat, responsesGeneration, ResponsesRequestSchema, toConversation, type Item } from "./wire.js";
import { StateUnavailableError, type IssuedApprovals, type ResponseStore, type StoredResponse } from "../state/state.js";
import { turnLogFields, type TurnRunner } from "../turns.js";

/** Names the request's tools the model was not offered (OpenAI's hosted tools, which the gateway cannot run). */
export const IGNORED_TOOLS_HEADER = "x-toolbridge-ignored-tools";

/** On a whole (non-streamed) response the store failed to keep: why, in one line. Its body says `store: false`. */
export const NOT_STORED_HEADER = "x-toolbridge-not-stored";

/** Longest chain of `previous_response_id` links one request may follow. */
export const MAX_CHAIN = 1000;

export interface ResponsesContext {
  res: ServerResponse;
  signal: AbortSignal;
  runner: TurnRunner;
  model: (name: string) => Promise<ChatModel>;
  store: ResponseStore;
  /** The approval requests the gateway issued: an approval is honoured only for one of these, once. */
  approvals: IssuedApprovals;
  servers: Readonly<Record<string, { url?: string }>>;
  log: Logger;
  requestId: string;
  /** The caller's id (Caller.id): stored responses are theirs alone. */
  caller: string;
}

/**
 * `POST /v1/responses`: the conversation (the stored chain of `previous_response_id`, then the
 * input items) goes through the same turn as a chat completion; the client's function tools
 * come back as `function_call` items, MCP calls the client must approve as
 * `mcp_approval_request` items, reasoning as reasoning items.
 */
export async function handleCreateResponse(body: unknown, context: ResponsesContext): Promise<void> {
  const parsed = ResponsesRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(400, `${issue?.path.length ? issue.path.join(".") : "body"}: ${issue?.message ?? "invalid request"}`, "invalid_request_error");
  }
  const request = parsed.data;
  const { runner, res } = context;
  const offered = runner.offered();
  const byServer = new Map(offered.map((tool) => [`${tool.server}\u0000${tool.originalName}`, tool]));
  const byName = new Map(offered.map((tool) => [tool.name, tool]));
  const hubTool = (server: string, name: string) => byServer.get(`${server}\u0000${name}`);
  const exposedName = (server: string, name: string) => hubTool(server, name)?.name ?? name;

  const id = newId("resp");
  const prior = request.previous_response_id ? await chain(context, request.previous_response_id) : [];
  let sent: Item[];
  let selection;
  let clientTools: ToolDefinition[];
  let namespaced: ClientTools["namespaced"];
  try {
    sent = inputItems(request.input, id);
    selection = selectMcpTools(request.tools, offered, context.servers, runner.policy());
    const functions = clientFunctionTools(request.tools);
    namespaced = functions.namespaced;
    clientTools = [...functions.definitions, ...[...selection.needApproval.values()].map(toToolDefinition)];
    const { ignored } = functions;
    if (ignored.length > 0) {
      res.setHeader(IGNORED_TOOLS_HEADER, ignored.join(","));
      context.log.log("warn", "hosted tools the gateway cannot run were left out", { requestId: context.requestId, tools: ignored });
    }
  } catch (error) {
    throw asBadRequest(error);
  }
  const { items: input, origin } = await resolveReferences(sent, prior, context);
  const model = await context.model(request.model);

  const stream = request.stream === true;
  const output = new ResponseOutput({
    base: {
      id,
      object: "response",
      created_at: Math.floor(Date.now() / 1000),
      background: false,
      error: null,
      incomplete_details: null,
      instructions: request.instructions ?? null,
      max_output_tokens: request.max_output_tokens ?? null,
      max_tool_calls: request.max_tool_calls ?? null,
      metadata: request.metadata ?? {},
      model: request.model,
      parallel_tool_calls: request.parallel_tool_calls ?? true,
      previous_response_id: request.previous_response_id ?? null,
      reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
      store: request.store !== false,
      temperature: request.temperature ?? null,
      text: { format: request.text?.format ?? { type: "text" } },
      tool_choice: request.tool_choice ?? "auto",
      tools: request.tools ?? [],
      top_p: request.top_p ?? null,
      top_logprobs: request.top_logprobs ?? 0,
      truncation: "disabled",
      user: request.user ?? null,
    },
    showToolCalls: selection.explicit,
    hubTool: (name) => byName.get(name),
    needApproval: selection.needApproval,
    namespaced,
    clientNames: new Set(clientTools.map((tool) => tool.name)),
    ...(stream ? { send: (event: Record<string, unknown>) => void (res.writableEnded || res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)) } : {}),
  });

  // Checked before anything is sent, so a bad conversation is a 400, not a failed stream.
  const where = (index: number) => (index < prior.length ? `previous_response_id's item ${index}` : `input[${origin[index - prior.length]}]`);
  const answered = answeredApprovals([...prior, ...input], prior.length, where);
  try {
    toConversation([...prior, ...input], exposedName, where);
  } catch (error) {
    throw asBadRequest(error);
  }
  // Without an `mcp` tool in the request (no filter) no approval runs anything: the request offers no MCP call to approve.
  const offeredTool = (server: string, name: string) => {
    const tool = hubTool(server, name);
    return tool && selection.filter?.(tool) ? tool : undefined;
  };
  const approvals = await honouredApprovals(answered, { ...context, offered: offeredTool });

  if (stream) res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" });
  output.start();
  const listed = new Set([...prior, ...input].filter((item) => item.type === "mcp_list_tools").map((item) => item.server_label));
  for (const server of selection.servers) if (!listed.has(server.label)) output.listTools(server.label, server.tools);
  for (const { request: approved, tool, refused } of approvals) {
    if (!tool) {
      output.approvedCall(approved, { error: refused });
      continue;
    }
    const record = await runner.runApproved({ id: approved.id, name: tool.name, arguments: approved.arguments }, context.signal);
    output.approvedCall(approved, mcpCallOutput(record.content, record.isError));
  }

  const conversation = toConversation([...prior, ...input, ...output.items], exposedName, where);
  const history = conversation.messages;
  const last = history.at(-1);
  let turnInput = null;
  if (last?.role === "user") {
    history.pop();
    turnInput = last.content;
  } else if (last?.role !== "tool") {
    throw new HttpError(400, "input: nothing to answer: end the input with a user message, a function_call_output or an mcp_approval_response", "invalid_request_error");
  }
  const choice = request.tool_choice;
  const format = responseFormat(request);
  const generation = responsesGeneration(request);
  const turn = await runner.run(
    {
      system: [request.instructions ?? "", ...conversation.system].filter((part) => part !== "").join("\n\n"),
      history,
      input: turnInput,
      clientTools,
      ...(Object.keys(generation).length > 0 ? { generation } : {}),
      ...(format ? { responseFormat: format } : {}),
      ...(choice === "auto" || choice === "required" || choice === "none" ? { toolChoice: choice } : choice && choice.type === "function" ? { toolChoice: { name: String(choice.name) } } : {}),
    },
    {
      model,
      signal: context.signal,
      ...(request.temperature != null ? { temperature: request.temperature } : {}),
      ...(request.max_output_tokens != null ? { maxTokens: request.max_output_tokens } : {}),
      ...(selection.filter ? { toolFilter: selection.filter } : {}),
      ...(request.max_tool_calls != null ? { maxToolCalls: request.max_tool_calls } : {}),
      onEvent: (event) => output.onEvent(event),
    },
  );
  logTurn(context, id, turn);
  if (turn.status === "aborted" || res.writableEnded) {
    res.end();
    return;
  }
  if (!stream && turn.status === "failed") throw turnFailure(turn.error);
  output.clientCalls(turn);
  await issueApprovals(output.items, context, hubTool);
  const response = output.finish(turn);
  if (request.store !== false && turn.status === "completed") {
    const record: StoredResponse = { id, owner: context.caller, response, input, output: output.items };
    if (request.previous_response_id) record.previous = request.previous_response_id;
    try {
      await context.store.put(record);
    } catch (error) {
      const lost = `Response ${id} could not be stored: ${error instanceof Error ? error.message : String(error)}`;
      // A stream has already sent the answer: the error event after it says only what was lost.
      if (stream) throw error instanceof StateUnavailableError ? new StateUnavailableError(lost) : error;
      // The model's work is done: the answer goes out all the same, saying it was not kept.
      context.log.log("warn", "store unavailable", { requestId: context.requestId, error: lost });
      response.store = false;
      res.setHeader(NOT_STORED_HEADER, lost.replace(/[^\x20-\x7e]+/g, " ").slice(0, 400));
    }
  }
  if (stream) res.end();
  else sendJson(res, 200, response);
}

/** The conversation before this request: the items of every stored response of the chain, oldest first. */
async function chain(context: ResponsesContext, id: string): Promise<Item[]> {
  const links: StoredResponse[] = [];
  let next: string | undefined = id;
  while (next !== undefined) {
    if (links.length >= MAX_CHAIN) throw new HttpError(400, `previous_response_id: the conversation is longer than ${MAX_CHAIN} responses; start a new one`, "invalid_request_error");
    const record = await context.store.get(next);
    if (!record || record.owner !== context.caller) {
      const which = next === id ? `Response ${id}` : `Response ${next} (earlier in the conversation of ${id})`;
      throw new HttpError(404, `${which} was not found: it was never stored, has expired, or was deleted`, "invalid_request_error", "previous_response_not_found");
    }
    links.push(record);
    next = record.previous;
  }
  return links.reverse().flatMap((record) => [...record.input, ...record.output]);
}

type ApprovalRequest = { id: string; server_label: string; name: string; arguments: string };

/** The approval requests the new input answers with approve: true, each once, with where the answer is. */
function answeredApprovals(items: readonly Item[], firstNew: number, where: (index: number) => string) {
  const requests = new Map<string, ApprovalRequest>();
  const approved: { request: ApprovalRequest; at: string }[] = [];
  const ran = new Set(items.filter((item) => item.type === "mcp_call" && typeof item.approval_request_id === "string").map((item) => item.approval_request_id));
  items.forEach((item, index) => {
    if (item.type === "mcp_approval_request") {
      const parsed = McpApprovalRequestSchema.safeParse(item);
      if (parsed.success) requests.set(parsed.data.id, parsed.data);
    }
    if (index < firstNew || item.type !== "mcp_approval_response") return;
    const answer = McpApprovalResponseSchema.safeParse(item);
    if (!answer.success || !answer.data.approve) return;
    const request = requests.get(answer.data.approval_request_id);
    if (!request) throw new HttpError(400, `${where(index)}: approval_request_id "${answer.data.approval_request_id}" answers no mcp_approval_request of this conversation`, "invalid_request_error");
    if (ran.has(request.id) || approved.some((entry) => entry.request.id === request.id)) return;
    approved.push({ request, at: where(index) });
  });
  return approved;
}

/**
 * The approvals that may run: each must answer a request the gateway itself issued to this
 * caller, for the same server, tool, definition and arguments, and is then used up. One that
 * does not is refused (400) before anything runs; one whose tool this request does not offer,
 * or whose definition changed, runs nothing and says why.
 */
async function honouredApprovals(
  answered: readonly { request: ApprovalRequest; at: string }[],
  context: ResponsesContext & { offered: (server: string, name: string) => HubTool | undefined },
): Promise<{ request: ApprovalRequest; tool?: HubTool; refused?: string }[]> {
  const honoured: { request: ApprovalRequest; tool?: HubTool; refused?: string }[] = [];
  for (const { request, at } of answered) {
    const tool = context.offered(request.server_label, request.name);
    if (!tool) {
      honoured.push({ request, refused: `"${request.name}" of server "${request.server_label}" is not offered to this request; nothing ran` });
      continue;
    }
    const issued = await context.approvals.take(context.caller, request.id);
    if (!issued || issued.server !== request.server_label || issued.tool !== request.name || issued.arguments !== request.arguments) {
      throw new HttpError(400, `${at}: approval_request_id "${request.id}" answers no approval request the gateway issued to this caller for that call, or one already answered; nothing ran`, "invalid_request_error");
    }
    if (issued.definition !== toolIdentity(tool)) {
      honoured.push({ request, refused: `"${request.name}" of server "${request.server_label}" changed its definition since the approval was asked; nothing ran` });
      continue;
    }
    honoured.push({ request, tool });
  }
  return honoured;
}

/** Remembers the approval requests this response asks, bound to the caller and to the call as shown. */
async function issueApprovals(items: readonly Item[], context: ResponsesContext, tool: (server: string, name: string) => HubTool | undefined): Promise<void> {
  for (const item of items) {
    if (item.type !== "mcp_approval_request") continue;
    const request = McpApprovalRequestSchema.parse(item);
    const hubTool = tool(request.server_label, request.name);
    if (!hubTool) continue;
    await context.approvals.put({ id: request.id, owner: context.caller, server: request.server_label, tool: request.name, definition: toolIdentity(hubTool), arguments: request.arguments });
  }
}

function asBadRequest(error: unknown): unknown {
  return error instanceof WireError ? new HttpError(400, error.message, "invalid_request_error") : error;
}

function logTurn(context: ResponsesContext, id: string, turn: TurnResult): void {
  context.log.log(turn.status === "failed" ? "warn" : "info", "response", { requestId: context.requestId, response: id, ...turnLogFields(turn) });
}

/** `GET /v1/responses/{id}`, `DELETE …`, `GET …/input_items`. */
export async function handleStoredResponse(method: string, path: string, query: URLSearchParams, context: { res: ServerResponse; store: ResponseStore; caller: string }): Promise<boolean> {
  const match = /^\/v1\/responses\/([^/]+)(\/input_items)?$/.exec(path);
  if (!match) return false;
  const id = decodeURIComponent(match[1] as string);
  const listing = match[2] !== undefined;
  if (!(method === "GET" || (method === "DELETE" && !listing))) return false;
  const record = await context.store.get(id);
  if (!record || record.owner !== context.caller) throw new HttpError(404, `Response ${id} was not found: it was never stored, has expired, or was deleted`, "invalid_request_error", "not_found");
  if (method === "DELETE") {
    await context.store.delete(id);
    sendJson(context.res, 200, { id, object: "response.deleted", deleted: true });
  } else if (listing) sendJson(context.res, 200, listItems(record.input, query));
  else sendJson(context.res, 200, record.response);
  return true;
}

/** OpenAI's list page: `order` (desc by default), `after`, `limit` (1 to 100, 20 by default). */
function listItems(items: readonly Item[], query: URLSearchParams) {
  const order = query.get("order") === "asc" ? "asc" : "desc";
  const limit = Math.min(100, Math.max(1, Number(query.get("limit") ?? 20) || 20));
  const ordered = order === "asc" ? [...items] : [...items].reverse();
  const after = query.get("after");
  const start = after ? ordered.findIndex((item) => item.id === after) + 1 : 0;
  const data = ordered.slice(start, start + limit);
  return { object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < ordered.length };
}

