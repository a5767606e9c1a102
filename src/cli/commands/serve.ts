import { Argument, InvalidArgumentError, type Command } from "commander";
import { BUNDLED_SERVER_NAMES, type BundledServerName } from "../../servers/names.js";

const HUB = "hub";

export interface ListenAddress {
  host: string;
  port: number;
}

/** Parses `--http [host:]port`: "3000", "0.0.0.0:3000", "[::1]:3000". */
export function parseListenAddress(value: string): ListenAddress {
  const match = /^(?:(\[[^\]]+\]|[^:[\]]+):)?(\d+)$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65_535) throw new InvalidArgumentError("Expected [host:]port, e.g. 3000 or 127.0.0.1:3000 (port 0 picks a free one).");
  const host = match[1]?.replace(/^\[(.*)\]$/, "$1") ?? "127.0.0.1";
  return { host, port };
}

function parseHostList(value: string): string[] {
  return value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
}

interface ServeOptions {
  http?: ListenAddress;
  allowedHosts?: string[];
  config?: string;
  approve?: string;
}

/** Runs until the client leaves (stdio) or SIGINT/SIGTERM arrives, then closes cleanly. */
async function serve(name: BundledServerName | typeof HUB, options: ServeOptions): Promise<void> {
  if (name === HUB) {
    await (await import("./serve-hub.js")).serveHub(options);
    return;
  }
  // Loaded here, not at the top: every other command, and a hub starting this server, would pay for them.
  const factory = (await import("../../servers/bundled.js")).BUNDLED_SERVERS[name];
  const handle = options.http
    ? await (await import("../../servers/http.js")).serveHttp(factory, { ...options.http, allowedHosts: options.allowedHosts })
    : await (await import("../../servers/stdio.js")).serveStdio(factory);

  let stopped: () => void = () => {};
  const stop = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  process.once("SIGINT", stopped);
  process.once("SIGTERM", stopped);

  if ("url" in handle) {
    // stderr: in every mode stdout belongs to the protocol or to whoever parses our output.
    process.stderr.write(`toolbridge ${name} server listening on ${handle.url}\n`);
    await stop;
  } else {
    if (process.stdin.isTTY) process.stderr.write(`toolbridge ${name} server on stdio; Ctrl+C to stop\n`);
    await Promise.race([stop, handle.closed]);
  }
  process.off("SIGINT", stopped);
  process.off("SIGTERM", stopped);
  await handle.close();
}

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("Run a bundled MCP server over stdio, or over Streamable HTTP with --http; `hub` serves every configured server's tools as one (stdio)")
    .addArgument(new Argument("<server>", "which server").choices([...BUNDLED_SERVER_NAMES, HUB]))
    .option("--http <[host:]port>", "serve Streamable HTTP at /mcp on this address (host defaults to 127.0.0.1)", parseListenAddress)
    .option("--allowed-hosts <names>", "comma-separated extra hostnames accepted in Host/Origin headers with --http", parseHostList)
    .option("--config <file>", "hub: the config file (default: ./toolbridge.json, then the user config)")
    .option("--approve <mode>", "hub: which tools run: ask (trusted servers and listed tools only), readonly, all (default: gateway.approve, else ask)")
    .action(async (server: BundledServerName | typeof HUB, options: ServeOptions) => {
      await serve(server, options);
    });
}
