import type { FetchLike } from "@modelcontextprotocol/client";

/**
 * A fetch that gives each request an abort signal of its own. The SDK's HTTP transports hand
 * every request the one signal of the transport, and fetch (undici) keeps a listener on the
 * signal a request is given until that request is garbage-collected: a server that sends a
 * thousand requests at once gets a thousand answers posted back, a thousand listeners pile up
 * on that one signal, and Node prints a MaxListenersExceededWarning into the chat. Here the
 * transport's signal has one listener, whatever the number of requests, which aborts the
 * requests still under way; a request is let go once its answer is read, cancelled or failed.
 */
export function ownSignals(base: FetchLike): FetchLike {
  const underWay = new WeakMap<AbortSignal, Set<AbortController>>();
  const requestsOf = (shared: AbortSignal): Set<AbortController> => {
    let requests = underWay.get(shared);
    if (!requests) {
      const live = new Set<AbortController>();
      shared.addEventListener("abort", () => {
        for (const request of live) request.abort(shared.reason);
        live.clear();
      }, { once: true });
      underWay.set(shared, live);
      requests = live;
    }
    return requests;
  };
  return async (url, init) => {
    const shared = init?.signal;
    if (!shared || shared.aborted) return base(url, init);
    const own = new AbortController();
    const requests = requestsOf(shared);
    requests.add(own);
    const release = (): void => void requests.delete(own);
    try {
      const response = await base(url, { ...init, signal: own.signal });
      if (!response.body) {
        release();
        return response;
      }
      return new Response(releasedAtEnd(response.body, release), { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (error) {
      release();
      throw error;
    }
  };
}

/** The body as it is read, `release` called once it ends, fails or is cancelled. */
function releasedAtEnd(body: ReadableStream<Uint8Array>, release: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            release();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          release();
          controller.error(error);
        }
      },
      async cancel(reason) {
        release();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
