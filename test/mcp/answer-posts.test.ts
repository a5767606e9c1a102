// The POSTs that carry answers to a server's requests: a few at a time, each waiting one given up when its request is.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { ANSWERS_AT_ONCE, answerPosts } from "../../src/mcp/transport/answer-posts.js";
import { readBody } from "../support/read-body.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A server that holds every answer until told, and answers anything else at once. */
async function holdingServer(): Promise<{ url: string; held: ServerResponse[]; firstHeld: (count: number) => Promise<void> }> {
  const held: ServerResponse[] = [];
  let waiter: { count: number; resolve(): void } | undefined;
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const message = JSON.parse(body) as { method?: string };
      if (message.method !== undefined) return res.writeHead(200, { "content-type": "application/json" }).end("{}");
      held.push(res);
      if (waiter && held.length >= waiter.count) waiter.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    held,
    firstHeld: (count) => new Promise<void>((resolve) => (held.length >= count ? resolve() : (waiter = { count, resolve }))),
  };
}

const answer = (id: number): RequestInit => ({ method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id, result: {} }), headers: { "content-type": "application/json" } });

it("posts answers a few at a time, a request of ours at once, and gives up an answer waiting its turn when its request is aborted", async () => {
  const server = await holdingServer();
  const post = answerPosts(fetch);
  const aborted = new AbortController();
  const answers = Array.from({ length: ANSWERS_AT_ONCE + 4 }, (_, k) => post(server.url, k === ANSWERS_AT_ONCE ? { ...answer(k), signal: aborted.signal } : answer(k)));
  await server.firstHeld(ANSWERS_AT_ONCE);
  // A tool call passes the answers waiting; by the time it is answered, no answer beyond the few was let through.
  const call = await post(server.url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: "c", method: "tools/call", params: { name: "t" } }) });
  expect(call.status).toBe(200);
  expect(server.held).toHaveLength(ANSWERS_AT_ONCE);
  aborted.abort(new Error("the transport closed"));
  await expect(answers[ANSWERS_AT_ONCE]).rejects.toThrow("the transport closed");
  // Each answer taken lets the next waiting one through, the given-up one skipped.
  for (let taken = 0; taken < ANSWERS_AT_ONCE + 3; taken++) {
    await server.firstHeld(taken + 1);
    server.held[taken]?.writeHead(202).end();
  }
  const statuses = await Promise.all(answers.filter((_, k) => k !== ANSWERS_AT_ONCE).map(async (response) => (await response).status));
  expect(statuses).toEqual(Array(ANSWERS_AT_ONCE + 3).fill(202));
  expect(server.held).toHaveLength(ANSWERS_AT_ONCE + 3);
});
