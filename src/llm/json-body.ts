/**
 * A request's JSON body, for a conversation that may hold answers and tool results of many
 * megabytes. `JSON.stringify` of the whole would copy every one of them into one string, and
 * sending that string copies them again into bytes; here a large body is written as it is
 * sent, in pieces of about 64 KiB, each long string in slices, so what is held beyond the
 * conversation itself is one piece. A small body is one string, as before.
 */
export interface JsonBody {
  body: string | ReadableStream<Uint8Array>;
  /** In bytes (UTF-8), for Content-Length: servers that refuse a chunked request body get none. */
  length: number;
}

/** Bodies whose strings hold no more characters than this are sent as one string. */
const ONE_STRING_CHARS = 1024 * 1024;
/** The size of a piece sent, and of the slices a long string is written in. */
const PIECE_CHARS = 64 * 1024;

export function jsonBody(value: unknown): JsonBody {
  if (stringCharsUpTo(value, ONE_STRING_CHARS) <= ONE_STRING_CHARS) {
    const text = JSON.stringify(value);
    return { body: text, length: Buffer.byteLength(text) };
  }
  let length = 0;
  for (const piece of pieces(value)) length += Buffer.byteLength(piece);
  // Made again as they are sent: a second pass costs far less than a copy of the conversation held until sent.
  const sending = pieces(value);
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = sending.next();
        if (next.done) controller.close();
        else controller.enqueue(Buffer.from(next.value));
      },
      cancel() {
        sending.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return { body, length };
}

/** The JSON text of `value` in pieces of about PIECE_CHARS characters. */
function* pieces(value: unknown): Generator<string> {
  let held = "";
  for (const part of parts(value, "")) {
    held += part;
    if (held.length >= PIECE_CHARS) {
      yield held;
      held = "";
    }
  }
  if (held !== "") yield held;
}

/** The JSON text of `value` as JSON.stringify writes it, in parts; only long strings are cut. */
function* parts(value: unknown, key: string): Generator<string> {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  if (typeof value === "string") {
    if (value.length <= PIECE_CHARS) return yield JSON.stringify(value);
    yield '"';
    for (let start = 0; start < value.length; ) {
      let end = Math.min(start + PIECE_CHARS, value.length);
      // A surrogate pair stays in one slice: alone, each half would be written as an escape.
      if (end < value.length && isHighSurrogate(value.charCodeAt(end - 1))) end++;
      yield JSON.stringify(value.slice(start, end)).slice(1, -1);
      start = end;
    }
    return yield '"';
  }
  if (value === null || typeof value !== "object") {
    return yield JSON.stringify(value) ?? "null";
  }
  if (Array.isArray(value)) {
    yield "[";
    for (let index = 0; index < value.length; index++) {
      if (index > 0) yield ",";
      const item: unknown = value[index];
      yield* parts(typeof item === "function" || typeof item === "symbol" || item === undefined ? null : item, String(index));
    }
    return yield "]";
  }
  let first = true;
  for (const [name, item] of Object.entries(value)) {
    if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
    yield `${first ? "{" : ","}${JSON.stringify(name)}:`;
    first = false;
    yield* parts(item, name);
  }
  yield first ? "{}" : "}";
}

/** The characters of the strings in `value`, counted until they pass `limit`. */
function stringCharsUpTo(value: unknown, limit: number): number {
  if (typeof value === "string") return value.length;
  if (value === null || typeof value !== "object") return 0;
  let chars = 0;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    chars += stringCharsUpTo(item, limit - chars);
    if (chars > limit) break;
  }
  return chars;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
