import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
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
