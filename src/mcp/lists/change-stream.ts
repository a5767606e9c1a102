import type { Client, McpSubscription, RequestOptions, SubscriptionFilter } from "@modelcontextprotocol/client";
import { describe } from "../connect/describe-error.js";

/**
 * The resources subscribed to on one server, and a 2026-07-28 server's subscriptions/listen stream: such a
 * server sends list changes and resource updates only on that stream, so one is opened for the lists it says
 * change and the resources subscribed to (a restart's too); the notifications reach the handlers a 2025
 * server's would.
 */
export class ChangeStream {
  /** The URIs subscribed to, renewed after a restart. */
  readonly subscriptions = new Set<string>();
  /** The open stream, and the opening of the next one. */
  private listener: { client: Client; subscription: McpSubscription } | undefined;
  private listening: Promise<unknown> = Promise.resolve();

  /** The stream a 2026-07-28 server just connected sends its changes on; `refused` hears why it could not be opened. */
  async open(client: Client, timeout: number, refused: (error: unknown) => void): Promise<void> {
    if (client.getProtocolEra() !== "modern") return;
    await this.listen(client, [...this.subscriptions], timeout).catch(refused);
  }

  /** On 2026-07-28 there is no resources/subscribe: the subscriptions/listen stream is opened again with the URI in it. */
  async subscribe(client: Client, uri: string, options: RequestOptions & { timeout: number }): Promise<object> {
    if (client.getProtocolEra() !== "modern") return client.subscribeResource({ uri }, options);
    const honored = await this.listen(client, [...this.subscriptions, uri], options.timeout);
    if (!honored.resourceSubscriptions?.includes(uri)) throw new Error(`the server does not offer updates of ${uri} (subscriptions/listen)`);
    return {};
  }

  /** Stops updates of `uri`, already left out of the subscriptions. */
  async unsubscribe(client: Client, uri: string, options: RequestOptions & { timeout: number }): Promise<object> {
    if (client.getProtocolEra() !== "modern") return client.unsubscribeResource({ uri }, options);
    await this.listen(client, [...this.subscriptions], options.timeout);
    return {};
  }

  /**
   * A 2025 server started again is subscribed again, each bounded like any request; a 2026-07-28 server's
   * subscriptions are in the stream its start opened.
   */
  async renew(client: Client, timeout: number, log: (line: string) => void): Promise<void> {
    if (client.getProtocolEra() !== "legacy") return;
    await Promise.all(
      [...this.subscriptions].map((uri) =>
        client.subscribeResource({ uri }, { timeout }).catch((error: unknown) => {
          log(`could not renew the subscription to ${uri}: ${describe(error)}`);
        }),
      ),
    );
  }

  /**
   * Opens the subscriptions/listen stream for the server's list changes and these resources, then closes
   * the one it replaces (so nothing sent meanwhile is missed); one at a time. What the server agreed to.
   */
  listen(client: Client, resources: string[], timeout: number): Promise<SubscriptionFilter> {
    const capabilities = client.getServerCapabilities() ?? {};
    const filter: SubscriptionFilter = {
      ...(capabilities.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(capabilities.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(capabilities.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(resources.length > 0 ? { resourceSubscriptions: resources } : {}),
    };
    const opening = this.listening.catch(() => undefined).then(async () => {
      const previous = this.listener?.client === client ? this.listener.subscription : undefined;
      if (Object.keys(filter).length === 0) {
        this.listener = undefined;
        await previous?.close();
        return filter;
      }
      const subscription = await client.listen(filter, { timeout });
      this.listener = { client, subscription };
      await previous?.close();
      return subscription.honoredFilter;
    });
    this.listening = opening;
    return opening;
  }
}
