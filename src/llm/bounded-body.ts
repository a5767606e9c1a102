import { bytesReader, type BodyBytes } from "./body-bytes.js";

/**
 * A response body read whole, but never more than `maxBytes` of it: what a server sends
 * instead of a stream (an error, a non-streamed answer) cannot make us hold more than that.
 */
export async function readBoundedBody(body: BodyBytes | null, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  if (!body) return { text: "", truncated: false };
  const reader = bytesReader(body);
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.next();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        truncated = true;
        break;
      }
    }
  } finally {
    await reader.return?.().catch(() => undefined);
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks).subarray(0, maxBytes)), truncated };
}
