import { isAscii } from "node:buffer";
import { bytesReader, type BodyBytes } from "./body-bytes.js";

/** One server-sent event: its `event` field (if any) and its data lines joined by "\n". */
export interface ServerSentEvent {
  event: string | undefined;
  data: string;
}

export interface ReadEventsOptions {
  /** The most bytes one event may take; past it, reading stops with `tooLarge(bytes)`. */
  maxEventBytes: number;
  tooLarge: (bytes: number) => Error;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Reads server-sent events in linear time and with few copies, whatever the chunking: the
 * bytes of an unfinished line are kept as the pieces that came, joined once when the line
 * ends, and decoded once. (Readers that append every chunk to what they hold and rescan it,
 * as the `openai` SDK's does, take quadratic time on one large event: 50 MB took minutes.)
 * The events that end in one chunk come as one array: a server sends a short answer's events
 * in a read or two, and every step of an async iteration costs each of them a few promises.
 */
export async function* readServerSentEvents(body: BodyBytes, options: ReadEventsOptions): AsyncGenerator<ServerSentEvent[]> {
  let event: string | undefined;
  let data: string[] = [];
  /** Bytes of the current event in lines already read. */
  let eventBytes = 0;
  /** The pieces of the unfinished line, and their size. */
  let carry: Uint8Array[] = [];
  let carryBytes = 0;
  /** The last line end read was CR: an LF first in the next chunk completes that CRLF. */
  let endedWithCR = false;
  let finished = false;
  const reader = bytesReader(body);
  /** The events ended in the chunk being read. */
  let batch: ServerSentEvent[] = [];

  const readLine = (line: string): void => {
    if (line === "") {
      if (data.length > 0) batch.push({ event, data: data.join("\n") });
      event = undefined;
      data = [];
      eventBytes = 0;
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
  };

  try {
    for (;;) {
      const { value, done } = await reader.next();
      let bytes: Uint8Array = value ?? new Uint8Array();
      if (endedWithCR && bytes.length > 0) {
        if (bytes[0] === LF && carryBytes === 0) bytes = bytes.subarray(1);
        endedWithCR = false;
      }
      const end = done ? bytes.length : Math.max(bytes.lastIndexOf(LF), bytes.lastIndexOf(CR)) + 1;
      if (end === 0 && !done) {
        // No line end in this chunk: keep it, as it came.
        carry.push(bytes);
        carryBytes += bytes.length;
        if (eventBytes + carryBytes > options.maxEventBytes) throw options.tooLarge(eventBytes + carryBytes);
        continue;
      }
      carry.push(bytes.subarray(0, end));
      eventBytes += carryBytes + end;
      if (eventBytes > options.maxEventBytes) throw options.tooLarge(eventBytes);
      const lines = decodeLines(carry, carryBytes + end);
      carry = end < bytes.length ? [bytes.subarray(end)] : [];
      carryBytes = bytes.length - end;
      if (end > 0) endedWithCR = bytes[end - 1] === CR;
      // The text ends with a line end (unless the stream ended): the last "line" is empty, not a blank line.
      if (!done || lines[lines.length - 1] === "") lines.pop();
      for (const line of lines) readLine(line);
      if (batch.length > 0) {
        yield batch;
        batch = [];
      }
      if (done) break;
    }
    finished = true;
    // A stream that ended without the blank line after its last event still delivers it.
    if (data.length > 0) yield [{ event, data: data.join("\n") }];
  } finally {
    // A reader that stops early (an error, a cancelled answer) stops the download too.
    if (!finished) await reader.return?.().catch(() => undefined);
  }
}

/**
 * The text of whole lines, decoded once. Apart so that the joined bytes are garbage before the
 * lines are handed on: one large event is then held as bytes or as text, not as both.
 */
function decodeLines(pieces: Uint8Array[], size: number): string[] {
  const whole = pieces.length === 1 ? (pieces[0] as Uint8Array) : Buffer.concat(pieces, size);
  const bytes = Buffer.from(whole.buffer, whole.byteOffset, whole.length);
  // Buffer's decoders make a one-byte string of ASCII text, half what TextDecoder's streaming mode makes. Large
  // ASCII (what most servers send) is decoded as latin1, the same text: Node keeps a latin1 string of a megabyte or
  // more outside the JavaScript heap, where V8 counts it as external memory and collects it within a few events. A
  // large utf8 string goes into the heap's old space, which V8 lets grow to about four times what is alive before
  // it collects: each 20 MB event refused by the answer limit left its text there, 19 of them peaked at 395 MB.
  // A small event is decoded as utf8 either way: the ASCII check would cost it a sixth more, and save nothing.
  return bytes.toString(size >= EXTERNAL_STRING_BYTES && isAscii(bytes) ? "latin1" : "utf8").split(/\r\n|\r|\n/);
}

/** From about this size (Node's EXTERN_APEX) Node keeps a latin1 string outside the JavaScript heap. */
const EXTERNAL_STRING_BYTES = 1024 * 1024;
