import type { Transport, JSONRPCMessage } from "@modelcontextprotocol/client";

type OnMessage = NonNullable<Transport["onmessage"]>;

/** A settled promise: a job chained to it runs a microtask later, as queueMicrotask's would, without the AsyncResource Node makes for each of those. */
const SETTLED = Promise.resolve();

/**
 * The SDK runs notification handlers a microtask after a message arrives but settles a
 * response at once, removing the request's progress handler: a progress notification that
 * came just before its result was dropped. Handing a response over a microtask late, after
 * the handlers of what came before it, keeps the order in which messages arrived; one with
 * nothing before it still waiting goes at once. `amend` sees each message first (the one
 * place the client's messages pass through). Call before the client connects.
 */
export function keepArrivalOrder(transport: Transport, amend: (message: JSONRPCMessage) => JSONRPCMessage): void {
  let ordered: OnMessage | undefined;
  /** Messages handed over whose handlers may not have run yet: each is counted down a microtask after the SDK's job for it. */
  let unhandled = 0;
  const handled = (): void => void unhandled--;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get: () => ordered,
    set: (next: OnMessage | undefined) => {
      ordered =
        next &&
        ((arrived, extra) => {
          const message = amend(arrived);
          if (!isResponse(message)) {
            unhandled++;
            try {
              return next(message, extra);
            } finally {
              void SETTLED.then(handled);
            }
          }
          // A response with nothing before it still waiting (nearly every one) is handed over at once.
          if (unhandled === 0) return next(message, extra);
          void SETTLED.then(() => next(message, extra));
        });
    },
  });
}

function isResponse(message: JSONRPCMessage): boolean {
  return "id" in message && !("method" in message);
}
