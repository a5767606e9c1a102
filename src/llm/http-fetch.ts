import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Duplex, PassThrough, pipeline, Writable, type Readable, type Transform } from "node:stream";
import * as zlib from "node:zlib";
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from "node:zlib";
import type { BodyBytes } from "./body-bytes.js";
import { REDIRECT_STATUSES, redirectHop, schemeCheckedFetch } from "./redirects.js";

/**
 * A `fetch` for the SDKs' requests to a model server, made with node:http over its keep-alive
 * global agents (which also follow the proxy settings Node is given). The global fetch (undici)
 * costs about as much CPU per streamed request as the rest of the gateway's turn; this one
 * hands the answer's bytes to a web stream as they come, paused while nobody reads them.
 * The request's body is a string, bytes or a web stream (sent as it is read); anything else
 * (a Request, a form, a Blob) and a redirect go to the global fetch (a redirect to another scheme is
 * refused in one line, see redirects.ts). It asks for no content
 * encoding; a server that compresses all the same has its body decompressed as it is read
 * (gzip, deflate, br, and zstd where Node has it), so every limit on an answer's size counts the
 * decompressed bytes.
 */
export async function httpFetch(input: string | URL | Request, init: OpenInit = {}): Promise<Response> {
  return (await httpOpen(input, init)).response();
}

/**
 * An answer as it arrived, before it is made a web `Response`: a reader that takes the body's
 * bytes as they come skips the web stream and the `Response` (about a tenth of the CPU of a
 * gateway's streamed turn).
 */
export interface OpenedAnswer {
  readonly status: number;
  readonly contentType: string | null;
  /**
   * The body's bytes (decompressed) as they come, to be read once, or null for an answer
   * without one; the signal's abort and a connection cut mid-body fail it as they fail fetch's.
   */
  bytes(): BodyBytes | null;
  /** The answer as fetch gives it, its body not read before. */
  response(): Response;
}

/** A request's init, with a way to make a streamed body again for the one resend on a stale connection. */
export interface OpenInit extends RequestInit {
  /** The same streamed body, made again: without it, a streamed body is not sent again. */
  bodyAgain?: () => ReadableStream<Uint8Array>;
}

/** httpFetch's request, its answer not yet made a `Response`. */
export async function httpOpen(input: string | URL | Request, init: OpenInit = {}): Promise<OpenedAnswer> {
  const body = init.body ?? undefined;
  if (input instanceof Request || !(body === undefined || typeof body === "string" || body instanceof Uint8Array || body instanceof ReadableStream)) {
    return answerOf(await (input instanceof Request ? fetch(input, init) : followed(input, init)));
  }
  const url = typeof input === "string" ? new URL(input) : input;
  if (url.protocol !== "http:" && url.protocol !== "https:") return answerOf(await fetch(input, init));
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();
  const headers: Record<string, string> = {};
  const given = init.headers;
  // A plain record (what our own requests pass) is copied as it is, its names lowercased, without a Headers to make each time (9 µs a request).
  if (given && !(given instanceof Headers) && !Array.isArray(given)) for (const [name, value] of Object.entries(given)) headers[name.toLowerCase()] = value;
  else new Headers(given).forEach((value, name) => (headers[name] = value));
  if (typeof body === "string" || body instanceof Uint8Array) headers["content-length"] = String(Buffer.byteLength(body));
  const method = init.method ?? "GET";
  const request = { url, method, headers, signal };

  // A streamed body is sent again only if it can be made again; any other is sent as it is.
  const response = await sendRequest(request, body, body instanceof ReadableStream ? init.bodyAgain : () => body);

  const location = response.headers.location;
  if (response.statusCode !== undefined && REDIRECT_STATUSES.has(response.statusCode) && location) {
    response.destroy();
    const hop = redirectHop(url, init, response.statusCode, location);
    return answerOf(await followed(hop.url, hop.init));
  }
  const status = response.statusCode ?? 0;
  const nullBody = status === 204 || status === 205 || status === 304 || method === "HEAD";
  if (nullBody) response.resume();
  return {
    status,
    contentType: response.headers["content-type"] ?? null,
    bytes: () => (nullBody ? null : bodyBytes(decoded(response), signal)),
    response: () => {
      const headers = new Headers();
      const raw = response.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
      return new Response(nullBody ? null : bodyStream(bodyBytes(decoded(response), signal)), { status, statusText: response.statusMessage ?? "", headers });
    },
  };
}

interface RequestLine {
  url: URL;
  method: string;
  headers: Record<string, string>;
  signal: AbortSignal | undefined;
}

type RequestBody = string | Uint8Array | ReadableStream<Uint8Array> | undefined;

/** What a connection the server closed while it idled fails with, as the request is written to it. */
const CLOSED_UNDER_US = new Set(["ECONNRESET", "EPIPE"]);

/**
 * One request with `body`, to its answer's head; an answer's body is the caller's to read. `again` makes the body
 * for the one resend on a stale connection: a kept-alive connection the server closed as it idled, just as the
 * request went out (Node's agent keeps one as long as a server of 5 s keep-alive does: uvicorn's, Node's). Nothing
 * was answered and the agent has dropped that connection, so the request is sent once more, as Node's
 * documentation advises, instead of failing the turn.
 */
function sendRequest(line: RequestLine, body: RequestBody, again?: () => RequestBody): Promise<IncomingMessage> {
  const { url, method, headers, signal } = line;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, { method, headers });
    const onAbort = () => req.destroy(abortReason(signal));
    signal?.addEventListener("abort", onAbort, { once: true });
    req.once("response", (res) => {
      // From here the body's stream answers for the abort.
      signal?.removeEventListener("abort", onAbort);
      resolve(res);
    });
    // Errors after the answer began (a reset mid-body) are the body's stream's to report.
    req.on("error", (error: NodeJS.ErrnoException) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) return reject(abortReason(signal));
      if (again && req.reusedSocket && CLOSED_UNDER_US.has(error.code ?? "")) return resolve(sendRequest(line, again()));
      reject(new TypeError("fetch failed", { cause: error }));
    });
    if (body instanceof ReadableStream) void sendStream(body, req);
    else req.end(body);
  });
}

/** A `Response` (from the global fetch) as an opened answer. */
function answerOf(response: Response): OpenedAnswer {
  return { status: response.status, contentType: response.headers.get("content-type"), bytes: () => response.body, response: () => response };
}

/** The global fetch, its redirects followed as redirects.ts does. */
const followed = schemeCheckedFetch();

/** What an aborted fetch rejects with: the signal's reason, an AbortError unless the caller gave one. */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException("This operation was aborted", "AbortError");
}

/**
 * The body with its content codings undone, last applied first, as fetch does: each decoder
 * works only as fast as its output is read, so a small body that inflates without end (a zip
 * bomb) is read no further than the reader's limit. A coding not known here (or none) leaves
 * the body as it came. Decoders flush as data comes, so that each event a server compressed
 * and flushed on its own is read at once, and they forgive a cut end as fetch does.
 */
function decoded(res: IncomingMessage): Readable {
  const codings = (res.headers["content-encoding"] ?? "").toLowerCase().split(",").map((coding) => coding.trim()).filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length === 0 || !codings.every((coding) => DECODERS.has(coding))) return res;
  const decoders = codings.reverse().map((coding) => (DECODERS.get(coding) as () => Transform | Duplex)());
  // An error (the socket's, or bytes that are not what the coding says) destroys them all, the last with it: the body's stream reports it.
  pipeline([res, ...decoders], () => undefined);
  return decoders[decoders.length - 1] as Readable;
}

const ZLIB_FLUSH = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
const DECODERS = new Map<string, () => Transform | Duplex>([
  ["gzip", () => createGunzip(ZLIB_FLUSH)],
  ["x-gzip", () => createGunzip(ZLIB_FLUSH)],
  ["deflate", inflateEither],
  ["br", () => createBrotliDecompress({ flush: constants.BROTLI_OPERATION_FLUSH, finishFlush: constants.BROTLI_OPERATION_FLUSH })],
  ["zstd", zstdDecoder],
]);

/**
 * A `deflate` body as fetch reads it: zlib-wrapped (RFC 1950), as the coding's name says, or
 * raw deflate, which some servers send under that name; its first two bytes tell which. The
 * chosen inflater is written to only as fast as it is read, as the other decoders are.
 */
function inflateEither(): Duplex {
  const output = new PassThrough();
  let inflater: Transform | undefined;
  const input = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!inflater) {
        inflater = isZlibHeader(chunk) ? createInflate(ZLIB_FLUSH) : createInflateRaw(ZLIB_FLUSH);
        pipeline(inflater, output, () => undefined);
      }
      if (inflater.write(chunk)) done();
      else inflater.once("drain", () => done());
    },
    final(done) {
      if (inflater) inflater.end();
      else output.end();
      done();
    },
    // Destroyed after it finished too (autoDestroy): only an error ends the inflater, which is still flushing then.
    destroy(error, done) {
      if (error) inflater?.destroy(error);
      done(error);
    },
  });
  return Duplex.from({ writable: input, readable: output });
}

/** RFC 1950's header: compression method 8, and the two bytes a multiple of 31. */
function isZlibHeader(head: Buffer): boolean {
  if ((head[0]! & 0x0f) !== 8) return false;
  return head.length < 2 || ((head[0]! << 8) | head[1]!) % 31 === 0;
}

type ZstdFactory = (options: { flush: number; finishFlush: number }) => Transform;
/** zstd is in node:zlib from Node 22.15; on an older Node the body fails with a line that says so, not as garbled JSON. */
function zstdDecoder(): Transform {
  const create = (zlib as unknown as { createZstdDecompress?: ZstdFactory }).createZstdDecompress;
  const codes = constants as unknown as Record<string, number>;
  if (create) return create({ flush: codes.ZSTD_e_flush ?? 1, finishFlush: codes.ZSTD_e_flush ?? 1 });
  const refusal = new PassThrough();
  process.nextTick(() => refusal.destroy(new Error(`the answer is compressed with zstd, which Node ${process.version} cannot decode (Node 22.15 or later can)`)));
  return refusal;
}

/**
 * The answer's bytes as they are read from the socket, the socket paused while the reader is
 * behind (up to 64 KiB waiting). What ends them early fails them as it fails the web stream
 * below: the signal's abort with its reason, a connection closed or failed before the body
 * ended with undici's "terminated". A reader that stops early destroys the body.
 */
function bodyBytes(res: Readable, signal: AbortSignal | undefined): AsyncIterable<Uint8Array> {
  const waiting: Buffer[] = [];
  let waitingBytes = 0;
  let ended = false;
  let failure: Error | undefined;
  /** The reader's pending `next()`, when nothing was waiting for it. */
  let reader: { resolve(result: IteratorResult<Uint8Array>): void; reject(error: Error): void } | undefined;
  const settle = () => {
    const next = reader;
    if (!next) return;
    reader = undefined;
    if (failure) next.reject(failure);
    else next.resolve({ done: true, value: undefined });
  };
  const finish = (error?: Error) => {
    if (ended || failure) return;
    if (error) failure = error;
    else ended = true;
    signal?.removeEventListener("abort", onAbort);
    settle();
  };
  const onAbort = () => {
    finish(abortReason(signal));
    res.destroy();
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  res.on("data", (chunk: Buffer) => {
    if (ended || failure) return;
    if (reader) {
      const next = reader;
      reader = undefined;
      return next.resolve({ done: false, value: chunk });
    }
    waiting.push(chunk);
    waitingBytes += chunk.length;
    if (waitingBytes >= 64 * 1024) res.pause();
  });
  res.once("end", () => finish());
  res.once("close", () => {
    // After the end as well: the errors (and their stacks) are made only for a body that did not end.
    if (!ended && !failure) finish(new TypeError("terminated", { cause: res.errored ?? new Error("other side closed") }));
  });
  res.on("error", () => undefined);
  const stop = () => {
    finish();
    res.destroy();
    return Promise.resolve({ done: true as const, value: undefined });
  };
  return {
    [Symbol.asyncIterator]: () => ({
      next(): Promise<IteratorResult<Uint8Array>> {
        const chunk = waiting.shift();
        if (chunk) {
          waitingBytes -= chunk.length;
          res.resume();
          return Promise.resolve({ done: false, value: chunk });
        }
        if (failure) return Promise.reject(failure);
        if (ended) return Promise.resolve({ done: true, value: undefined });
        return new Promise((resolve, reject) => (reader = { resolve, reject }));
      },
      return: stop,
    }),
  };
}

/** The answer's bytes as a web stream, read from them as fast as it is read (Node 20.0 has no `ReadableStream.from`). */
function bodyStream(bytes: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = bytes[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel() {
        await reader.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Until the request takes more, or is closed. Whichever comes first removes the other's listener: left
 * behind, a body of megabytes added a 'close' listener per wait, past Node's leak warning at 11.
 */
function drainedOrClosed(req: ReturnType<typeof httpRequest>): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      req.off("drain", done).off("close", done);
      resolve();
    };
    req.once("drain", done).once("close", done);
  });
}

/** A streamed request body, written as it is read and as fast as the socket takes it. */
async function sendStream(body: ReadableStream<Uint8Array>, req: ReturnType<typeof httpRequest>): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || req.destroyed) break;
      if (!req.write(value)) await drainedOrClosed(req);
    }
    req.end();
  } catch (error) {
    req.destroy(error instanceof Error ? error : new Error(String(error)));
  } finally {
    reader.releaseLock();
  }
}
