import type { EventStore, JSONRPCMessage } from "@modelcontextprotocol/server";

/** Events one session keeps for clients that reconnect with Last-Event-ID; the oldest go first. */
const MAX_EVENTS = 1000;

/**
 * The SSE events of one session, so that a client whose stream broke resumes where it was
 * (2025-11-25: the server primes each stream with an event id and a `retry` interval). Bounded:
 * a client that never comes back costs at most MAX_EVENTS messages.
 */
export class SessionEventStore implements EventStore {
  private readonly events = new Map<string, { streamId: string; message: JSONRPCMessage }>();
  private next = 0;

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const eventId = `${streamId}_${this.next++}`;
    this.events.set(eventId, { streamId, message });
    if (this.events.size > MAX_EVENTS) this.events.delete(this.events.keys().next().value as string);
    return eventId;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const last = this.events.get(lastEventId);
    if (!last) throw new Error(`unknown or expired event id ${lastEventId.slice(0, 100)}`);
    let after = false;
    for (const [eventId, event] of this.events) {
      if (eventId === lastEventId) after = true;
      // Priming events carry no message: nothing to replay.
      else if (after && event.streamId === last.streamId && "jsonrpc" in event.message) await send(eventId, event.message);
    }
    return last.streamId;
  }
}
