/**
 * The floor of the gateway's added latency: the least a proxy can do in front of the upstream,
 * with node:http on both sides. It reads the request's body, sends it on over a keep-alive
 * connection, and passes the answer's bytes back as they come, parsing nothing. What the gateway
 * adds beyond this row is the gateway's own; what this row adds over the upstream called directly
 * is the price of any hop. Run as a script (`node --import tsx bench/support/floor-proxy.ts UPSTREAM`) it
 * is a process of its own and prints `listening on URL`.
 */
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

export const FLOOR_FILE = fileURLToPath(import.meta.url);

/** A pass-through proxy on 127.0.0.1 to `upstream` (up to and including `/v1`); its URL is the same up to `/v1`. */
export async function startFloor(upstream: string): Promise<{ url: string; stop(): Promise<void> }> {
  const target = new URL(upstream);
  const prefix = target.pathname.replace(/\/$/, "");
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const path = `${prefix}${(req.url ?? "/").replace(/^\/v1/, "")}`;
      const headers = { "content-type": req.headers["content-type"] ?? "application/json", "content-length": String(body.length) };
      const forward = request({ host: target.hostname, port: target.port, path, method: req.method, agent, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, { "content-type": answer.headers["content-type"] ?? "application/octet-stream" });
        answer.on("data", (chunk: Buffer) => res.write(chunk));
        answer.on("end", () => res.end());
      });
      forward.on("error", () => res.destroy());
      forward.end(body);
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const floor = await startFloor(process.argv[2] as string);
  process.on("SIGTERM", () => void floor.stop().then(() => process.exit(0)));
  console.error(`listening on ${floor.url} `);
}
