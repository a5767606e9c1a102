import { describe, expect, it } from "vitest";
import { readServerSentEvents, type ServerSentEvent } from "../../src/llm/sse-events.js";

const encoder = new TextEncoder();

function body(pieces: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(typeof piece === "string" ? encoder.encode(piece) : piece);
      controller.close();
    },
  });
}

async function read(pieces: (string | Uint8Array)[], maxEventBytes = 1 << 20): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const batch of readServerSentEvents(body(pieces), { maxEventBytes, tooLarge: (bytes) => new Error(`event of ${bytes} bytes`) })) {
    expect(batch.length).toBeGreaterThan(0);
    events.push(...batch);
  }
  return events;
}

/** Every way of cutting `bytes` into pieces of `size`. */
function cut(bytes: Uint8Array, size: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.slice(i, i + size));
  return pieces;
}

describe("readServerSentEvents", () => {
  const stream = encoder.encode(
    'data: {"a":1}\n\nevent: error\ndata: two\ndata: lines\n\n: a comment\n\ndata:no space\r\n\r\ndata: 中文 ✓\r\rdata: last',
  );
  const expected: ServerSentEvent[] = [
    { event: undefined, data: '{"a":1}' },
    { event: "error", data: "two\nlines" },
    { event: undefined, data: "no space" },
    { event: undefined, data: "中文 ✓" },
    { event: undefined, data: "last" },
  ];

  it("reads the same events however the bytes were cut, characters and CRLFs included", async () => {
    for (const size of [1, 2, 3, 5, 8, 13, stream.length]) expect(await read(cut(stream, size))).toEqual(expected);
  });

  it("reads one large event sent in many pieces", async () => {
    const data = "x".repeat(200_000);
    expect(await read(cut(encoder.encode(`data: ${data}\n\n`), 1000))).toEqual([{ event: undefined, data }]);
  });

  it("holds a large ASCII event's text outside the JavaScript heap, where V8 counts it and collects it soon", async () => {
    // Made without a large string, so that no garbage of the test's own leaves the heap while it is measured.
    const size = 16 * 1024 * 1024;
    const bytes = Buffer.alloc(size + 8, "x");
    bytes.write("data: ", 0);
    bytes.write("\n\n", size + 6);
    const heapBefore = process.memoryUsage().heapUsed;
    const [event] = await read(cut(bytes, 65536), 32 * 1024 * 1024);
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    expect(event?.data.length).toBe(size);
    expect(event?.data.startsWith("xxx") && event.data.endsWith("xxx")).toBe(true);
    // Decoded into the heap, the text alone would add 16 MB there.
    expect(heapGrowth).toBeLessThan(size / 4);
  });

  it("reads a large event of other characters as UTF-8, however the bytes were cut", async () => {
    const data = "é中✓😀".repeat(50_000);
    for (const size of [4099, 65536]) expect(await read(cut(encoder.encode(`data: ${data}\n\n`), size))).toEqual([{ event: undefined, data }]);
  });

  it("hands over the events that end in one chunk as one batch", async () => {
    const batches: string[][] = [];
    for await (const batch of readServerSentEvents(body(["data: a\n\ndata: b\n\ndata: c", "\n\ndata: d\n\n"]), { maxEventBytes: 1000, tooLarge: () => new Error("too large") })) {
      batches.push(batch.map((event) => event.data));
    }
    expect(batches).toEqual([["a", "b"], ["c", "d"]]);
  });

  it("stops at an event larger than the limit, before its end arrives", async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(encoder.encode(pulled === 1 ? "data: " : "x".repeat(1000)));
      },
    });
    const events = readServerSentEvents(endless, { maxEventBytes: 10_000, tooLarge: (bytes) => new Error(`event of ${bytes} bytes`) });
    await expect(events.next()).rejects.toThrow("event of 10006 bytes");
    expect(pulled).toBeLessThan(20);
  });
});
