/** TEST INFRASTRUCTURE: a web chat turn's events (`/api/chat`'s `data: {...}` stream), as the page reads them. */
export interface WebChatEvent {
  type: string;
  id?: string;
  text?: string;
  [key: string]: unknown;
}

/** The events of `response` in order, each handed to `onEvent` (which may act on it, awaited) as it arrives. */
export async function webChatEvents(response: Response, onEvent: (event: WebChatEvent) => unknown = () => undefined): Promise<WebChatEvent[]> {
  const events: WebChatEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = JSON.parse(buffer.slice(6, end)) as WebChatEvent;
      buffer = buffer.slice(end + 2);
      events.push(event);
      await onEvent(event);
    }
  }
  return events;
}
