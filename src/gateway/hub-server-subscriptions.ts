import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { McpHttpHandler, RequestId, Transport } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Hub } from "../mcp/hub.js";

/** Resources one client of the hub may be subscribed to at once. */
export const MAX_SUBSCRIPTIONS_PER_CLIENT = 100;

type Subscriber = Pick<Hub, "subscribe" | "unsubscribe">;

/**
 * The subscriptions the hub holds at its servers for all its clients: a resource is subscribed to at its server
 * while some client wants its updates, once however many do, and unsubscribed from when the last lets it go.
 */
class SharedSubscriptions {
  private readonly holders = new Map<string, number>();

  constructor(private readonly hub: Subscriber) {}

  async acquire(server: string, uri: string): Promise<void> {
    const key = keyOf(server, uri);
    if (!this.holders.has(key)) await this.hub.subscribe(uri, server);
    this.holders.set(key, (this.holders.get(key) ?? 0) + 1);
  }

  release(server: string, uri: string): void {
    const key = keyOf(server, uri);
    const left = (this.holders.get(key) ?? 1) - 1;
    if (left > 0) return void this.holders.set(key, left);
    this.holders.delete(key);
    // A server gone meanwhile has no subscription left to end.
    void this.hub.unsubscribe(uri, server).catch(() => undefined);
  }
}

const sharedByHub = new WeakMap<Subscriber, SharedSubscriptions>();

/**
 * What one client of the hub served as one MCP server is subscribed to (`resources/subscribe`, 2025-11-25), by URI
 * and the server that owns it: updates of those, and only those, are its to hear. Let go when the client goes.
 */
export class ClientSubscriptions {
  private readonly owners = new Map<string, string>();
  private readonly shared: SharedSubscriptions;

  constructor(hub: Subscriber) {
    let shared = sharedByHub.get(hub);
    if (!shared) sharedByHub.set(hub, (shared = new SharedSubscriptions(hub)));
    this.shared = shared;
  }

  async subscribe(server: string, uri: string): Promise<void> {
    if (this.owners.get(uri) === server) return;
    if (this.owners.size >= MAX_SUBSCRIPTIONS_PER_CLIENT) {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `resources/subscribe refused: ${MAX_SUBSCRIPTIONS_PER_CLIENT} subscriptions are open on this connection; unsubscribe from one first`);
    }
    await this.shared.acquire(server, uri);
    this.owners.set(uri, server);
  }

  unsubscribe(uri: string): void {
    const server = this.owners.get(uri);
    if (server === undefined) return;
    this.owners.delete(uri);
    this.shared.release(server, uri);
  }

  wants(server: string, uri: string): boolean {
    return this.owners.get(uri) === server;
  }

  close(): void {
    for (const uri of [...this.owners.keys()]) this.unsubscribe(uri);
  }
}

function keyOf(server: string, uri: string): string {
  return `${server}\n${uri}`;
}

/** A `subscriptions/listen` naming resources (2026-07-28). */
const ResourceListenSchema = z.looseObject({
  method: z.literal("subscriptions/listen"),
  params: z.looseObject({ notifications: z.looseObject({ resourceSubscriptions: z.array(z.string()) }) }),
});

/** The server `caller` may read `uri` from, if any (as resources/read finds it). */
export type ReadableOwner = (caller: string, uri: string) => Promise<string | undefined>;

type ListenHub = Subscriber & Pick<Hub, "serversOffering">;

/**
 * A `subscriptions/listen` naming resources (2026-07-28), which the SDK's entry serves knowing nothing of the hub, as it
 * goes on to the entry: naming only the resources `caller` may read at a server that sends updates (the entry's
 * acknowledgement says which, as the spec has a server say what it honors), at most MAX_SUBSCRIPTIONS_PER_CLIENT,
 * each subscribed to at its server by `subscriptions` (the listen's own, let go when it ends). Undefined: no such listen.
 */
async function narrowedListen(message: unknown, caller: string, hub: ListenHub, ownerOf: ReadableOwner, subscriptions: ClientSubscriptions): Promise<Record<string, unknown> | undefined> {
  const listen = ResourceListenSchema.safeParse(message);
  if (!listen.success) return undefined;
  const kept: string[] = [];
  for (const uri of new Set(listen.data.params.notifications.resourceSubscriptions)) {
    if (kept.length >= MAX_SUBSCRIPTIONS_PER_CLIENT) break;
    const owner = await ownerOf(caller, uri);
    if (owner === undefined || !hub.serversOffering("subscriptions").includes(owner)) continue;
    // One its server refuses is left out of what the acknowledgement honors.
    const subscribed = await subscriptions.subscribe(owner, uri).then(() => true, () => false);
    if (subscribed) kept.push(uri);
  }
  const { resourceSubscriptions: _asked, ...notifications } = listen.data.params.notifications;
  return { ...listen.data, params: { ...listen.data.params, notifications: kept.length > 0 ? { ...notifications, resourceSubscriptions: kept } : notifications } };
}

/**
 * Resource subscriptions of 2026-07-28 clients of an HTTP handler of the SDK's (the request's body already parsed by
 * the caller): a listen naming resources goes on narrowed (narrowedListen), its resources held at their servers while
 * its stream is open.
 */
export function withResourceListens(handler: McpHttpHandler, hub: ListenHub, ownerOf: ReadableOwner): McpHttpHandler {
  const fetch: McpHttpHandler["fetch"] = async (request, options) => {
    const subscriptions = new ClientSubscriptions(hub);
    const passedOn = await narrowedListen(options?.parsedBody, options?.authInfo?.clientId ?? "anonymous", hub, ownerOf, subscriptions);
    if (!passedOn) return handler.fetch(request, options);
    const response = await handler.fetch(request, { ...options, parsedBody: passedOn });
    if (!response.body) {
      subscriptions.close();
      return response;
    }
    return new Response(endingWith(response.body, () => subscriptions.close()), { status: response.status, headers: response.headers });
  };
  return { ...handler, fetch };
}

/**
 * withResourceListens on one stdio connection (`serve hub`, whose caller is "stdio"): its resources held at their
 * servers until the entry ends the listen, the client cancels it, or the connection closes. Messages keep their order.
 * Install on the transport once the entry has set its handlers.
 */
export function serveResourceListens(wire: Transport, hub: ListenHub, ownerOf: ReadableOwner): void {
  const open = new Map<RequestId, ClientSubscriptions>();
  const receive = wire.onmessage;
  const send = wire.send.bind(wire);
  const closed = wire.onclose;
  const end = (id: RequestId): void => {
    open.get(id)?.close();
    open.delete(id);
  };
  let arrived = Promise.resolve();
  wire.onmessage = (message, extra) => {
    arrived = arrived.then(async () => {
      if ("method" in message && message.method === "subscriptions/listen" && "id" in message) {
        const subscriptions = new ClientSubscriptions(hub);
        const passedOn = await narrowedListen(message, "stdio", hub, ownerOf, subscriptions);
        if (passedOn) {
          open.set(message.id, subscriptions);
          return receive?.(passedOn as typeof message, extra);
        }
      }
      if ("method" in message && message.method === "notifications/cancelled") {
        const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (id !== undefined) end(id);
      }
      receive?.(message, extra);
    }).catch((error: unknown) => wire.onerror?.(error instanceof Error ? error : new Error(String(error))));
  };
  wire.send = (message, options) => {
    // The entry refused the listen, or ended it.
    if ("id" in message && !("method" in message) && message.id !== undefined) end(message.id);
    return send(message, options);
  };
  wire.onclose = () => {
    for (const id of [...open.keys()]) end(id);
    closed?.();
  };
}

/** `body` passed on as it comes; `end` runs once when it ends or its reader goes. */
function endingWith(body: ReadableStream<Uint8Array>, end: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const once = (): void => {
    if (!ended) end();
    ended = true;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (!next.done) return controller.enqueue(next.value);
      once();
      controller.close();
    },
    cancel(reason) {
      once();
      return reader.cancel(reason);
    },
  });
}
