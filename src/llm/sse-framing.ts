/**
 * Cuts a `text/event-stream` body into whole events, one chunk per event, in one pass over
 * the bytes, and bounds the size of one event.
 *
 * Why whole events: SSE readers that append every network chunk to what they hold and scan
 * it again from the start (the `openai` SDK's) take quadratic time on one large event (a
 * 50 MB event took minutes); handed one whole event per chunk they do one copy and one scan.
 * Why a bound: one endless `data:` line otherwise grows in memory until the process dies.
 */
export interface EventFramingOptions {
  /** The most bytes one event (its lines and the blank line that ends it) may take. */
  maxEventBytes: number;
  /**
   * Called once when an event passes maxEventBytes, with the bytes seen of it so far. Return
   * bytes to end the stream with (e.g. a replacement event), or an error to fail it with.
   * Either way the rest of the body is cancelled.
   */
  onOversized: (bytesSoFar: number) => Uint8Array | Error;
}

const LF = 0x0a;
const CR = 0x0d;

export function eventFramingStream(options: EventFramingOptions): TransformStream<Uint8Array, Uint8Array> {
  let pieces: Uint8Array[] = [];
  let pendingBytes = 0;
  /** The current line has no bytes yet: a line end now is a blank line, ending the event. */
  let lineEmpty = true;
  /** The previous byte was CR: an LF now completes CRLF, not another line end. */
  let afterCR = false;
  let stopped = false;

  const oversized = (controller: TransformStreamDefaultController<Uint8Array>, bytes: number): void => {
    stopped = true;
    pieces = [];
    const outcome = options.onOversized(bytes);
    if (outcome instanceof Error) {
      controller.error(outcome);
      return;
    }
    controller.enqueue(outcome);
    controller.terminate();
  };

  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (stopped) return;
      let start = 0;
      // Line ends found with the native indexOf: the bytes between them need no look.
      let nextLF = chunk.indexOf(LF);
      let nextCR = chunk.indexOf(CR);
      for (let i = 0; ; ) {
        if (nextLF !== -1 && nextLF < i) nextLF = chunk.indexOf(LF, i);
        if (nextCR !== -1 && nextCR < i) nextCR = chunk.indexOf(CR, i);
        const next = nextLF === -1 ? nextCR : nextCR === -1 ? nextLF : Math.min(nextLF, nextCR);
        if (next !== i && i < chunk.length) {
          // Some bytes of a line before the next line end (or the chunk's end).
          lineEmpty = false;
          afterCR = false;
        }
        if (next === -1) break;
        const byte = chunk[next];
        i = next + 1;
        if (byte === LF && afterCR) {
          afterCR = false;
          continue;
        }
        afterCR = byte === CR;
        if (!lineEmpty) {
          lineEmpty = true;
          continue;
        }
        // A blank line: the event ends here, with the LF of a CRLF that is in this chunk (readers that look for "\r\n\r\n", as @google/genai's does, see the event's end).
        if (byte === CR && chunk[i] === LF) {
          i++;
          afterCR = false;
        }
        const size = pendingBytes + i - start;
        if (size > options.maxEventBytes) return oversized(controller, size);
        if (pieces.length === 0) {
          controller.enqueue(chunk.subarray(start, i));
        } else {
          pieces.push(chunk.subarray(start, i));
          controller.enqueue(concat(pieces, size));
          pieces = [];
        }
        pendingBytes = 0;
        start = i;
      }
      if (start < chunk.length) {
        pendingBytes += chunk.length - start;
        if (pendingBytes > options.maxEventBytes) return oversized(controller, pendingBytes);
        // Not copied: a stream's producer hands each chunk over and never writes to it again.
        pieces.push(chunk.subarray(start));
      }
    },
    flush(controller) {
      // A stream that ends in the middle of an event: pass on what there is, as it came.
      if (!stopped && pieces.length > 0) controller.enqueue(concat(pieces, pendingBytes));
    },
  });
}

function concat(pieces: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const piece of pieces) {
    out.set(piece, offset);
    offset += piece.length;
  }
  return out;
}

/**
 * The body of a successful event-stream response, cut into whole events (see above); any
 * other response is returned as it is.
 */
export function frameEventStream(response: Response, options: EventFramingOptions): Response {
  if (!response.ok || !response.body || !isEventStream(response)) return response;
  return new Response(response.body.pipeThrough(eventFramingStream(options)), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

export function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() === "text/event-stream";
}
