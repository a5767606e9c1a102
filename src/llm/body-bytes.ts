/** A body's bytes: a web stream or any async iterable of them (a Node stream, a generator). */
export type BodyBytes = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** The reader of a body's bytes; its `return()` stops (cancels) the body. Node's web streams iterate, though their types do not say so. */
export function bytesReader(body: BodyBytes): AsyncIterator<Uint8Array> {
  return (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
}
