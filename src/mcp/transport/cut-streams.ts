import type { FetchLike, RequestId } from "@modelcontextprotocol/client";

/** Why a request's event stream can no longer bring its reply, as the end of "the server's event stream ...". */
export type StreamEnd = "was cut in the middle of an event" | "broke before the reply" | "ended without the reply";

/**
 * Over Streamable HTTP a request's reply may come on the event stream that answers its
 * POST. The SDK reconnects such a stream only when the server gave an event id to resume
 * from; otherwise, when the stream breaks mid-event or ends before the reply, it waits for
 * the request's timeout (a minute by default). This fetch watches those streams and calls
 * `onEnd` with the ids of the requests a stream carried once it ends that way, so that they
 * fail at once. Replies that did arrive were delivered before; for them `onEnd` is moot.
 */
export function watchResponseStreams(onEnd: (ids: RequestId[], how: StreamEnd) => void, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    const ids = init?.method === "POST" ? requestIds(init.body) : [];
    const type = response.headers.get("content-type") ?? "";
    if (ids.length === 0 || !response.body || !/^text\/event-stream/i.test(type)) return response;
    const reader = response.body.getReader();
    const scan = new EventScan();
    const end = (how: StreamEnd | undefined): void => {
      // After the SDK's parser has handed over every complete event this stream held.
      if (how) setTimeout(() => onEnd(ids, how), 0);
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          controller.error(error);
          end(scan.resumable ? undefined : "broke before the reply");
          return;
        }
        if (chunk.done) {
          controller.close();
          end(scan.resumable ? undefined : scan.midEvent ? "was cut in the middle of an event" : "ended without the reply");
          return;
        }
        scan.push(chunk.value);
        controller.enqueue(chunk.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function requestIds(body: unknown): RequestId[] {
  if (typeof body !== "string") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages
    .filter((m): m is { id: RequestId; method: string } => typeof m === "object" && m !== null && "method" in m && "id" in m)
    .map((m) => m.id);
}

/**
 * Just enough of the event-stream grammar, byte by byte: whether the stream stopped inside
 * an event, and whether an `id:` field made it resumable (the SDK then reconnects itself).
 */
class EventScan {
  resumable = false;
  midEvent = false;
  private lineStart = true;
  private lineHasText = false;
  private idField = 0;

  push(bytes: Uint8Array): void {
    for (const byte of bytes) {
      if (byte === 0x0a || byte === 0x0d) {
        // A blank line ends the event; a line with text leaves it open.
        if (this.lineStart && !this.lineHasText) this.midEvent = false;
        this.lineStart = true;
        this.lineHasText = false;
        this.idField = 0;
        continue;
      }
      if (this.lineStart) this.idField = 0;
      this.midEvent = true;
      this.lineHasText = true;
      // Matches "id:" at the start of a line.
      if (this.idField >= 0 && this.idField < 3) {
        this.idField = byte === "id:".charCodeAt(this.idField) ? this.idField + 1 : -1;
        if (this.idField === 3) this.resumable = true;
      }
      this.lineStart = false;
    }
  }
}
