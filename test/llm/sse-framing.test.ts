import { describe, expect, it } from "vitest";
import { eventFramingStream, type EventFramingOptions } from "../../src/llm/sse-framing.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Runs `pieces` through the framing and returns the chunks that came out, as text. */
async function frame(pieces: string[], options: Partial<EventFramingOptions> = {}): Promise<string[]> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
  const out: string[] = [];
  const framed = source.pipeThrough(
    eventFramingStream({ maxEventBytes: 1024, onOversized: () => new Error("too large"), ...options }),
  );
  // Node's web streams are async iterable; highlight.js's types pull in the DOM's, which do not say so.
  for await (const chunk of framed as unknown as AsyncIterable<Uint8Array>) out.push(decoder.decode(chunk));
  return out;
}

/** `text` cut into pieces of `size` characters. */
function cut(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

describe("eventFramingStream", () => {
  it("hands on one whole event per chunk however the bytes arrived", async () => {
    const events = ["data: one\n\n", "event: message\ndata: two\ndata: lines\n\n", ": comment\n\n", "data: four\n\n"];
    for (const size of [1, 3, 7, 1000]) expect(await frame(cut(events.join(""), size))).toEqual(events);
  });

  it("reads CRLF and CR line ends as the SSE grammar does", async () => {
    expect(await frame(cut("data: a\r\n\r\ndata: b\r\rdata: c\n\n", 1))).toEqual(["data: a\r\n\r", "\ndata: b\r\r", "data: c\n\n"]);

    // An event's closing CRLF stays whole when it came in one chunk: @google/genai's reader looks for "\r\n\r\n".
    expect(await frame(["data: a\r\n\r\ndata: b\r\n\r\n"])).toEqual(["data: a\r\n\r\n", "data: b\r\n\r\n"]);
  });

  it("turns one large event sent in many pieces into a single chunk", async () => {
    const event = `data: ${"x".repeat(100_000)}\n\n`;
    expect(await frame(cut(event, 100), { maxEventBytes: 200_000 })).toEqual([event]);
  });

  it("passes on a last event the stream ended without finishing", async () => {
    expect(await frame(["data: one\n\ndata: cut sh", "ort"])).toEqual(["data: one\n\n", "data: cut short"]);
  });

  it("fails the stream at an event larger than the limit, without waiting for its end", async () => {
    const seen: number[] = [];
    const error = await frame(["data: fine\n\n", `data: ${"x".repeat(2000)}`], {
      onOversized: (bytes) => {
        seen.push(bytes);
        return new Error("one event is too large");
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("one event is too large");
    expect(seen).toEqual([2006]);
  });

  it("can end the stream with replacement bytes instead", async () => {
    const out = await frame(["data: fine\n\n", `data: ${"x".repeat(2000)}\n\n`, "data: never read\n\n"], {
      onOversized: () => encoder.encode("data: replaced\n\n"),
    });
    expect(out).toEqual(["data: fine\n\n", "data: replaced\n\n"]);
  });
});
